import { describe, expect, it } from 'vitest';
import { formatVerdict } from '../../src/cli/format/verdict-text.js';
import type { Verdict } from '../../src/core/events.js';
import type { StartRecord } from '../../src/history/start-record.js';
import { Session } from '../../src/core/session.js';
import { trackedSession, trackerOf, type Memory, type StartTracker } from '../../src/history/start-tracker.js';
import { shippedPack } from '../helpers/classify.js';
import { sg, sglangHealthyStart } from '../helpers/log-lines.js';

const packs = [shippedPack('sglang'), shippedPack('vllm')];
const READY = sg('12:00:35', 'The server is fired up and ready to roll!');
const HOUR = 3_600_000;
const at = { host: 'gpu-01', when: new Date('2025-06-01T10:00:00Z'), source: 'watch' as const, log: '/data/server.log' };

function run(lines: string[], options: { memory?: Memory; idleMs?: number; fallbackModel?: string } = {}): { tracker: StartTracker; verdict: Verdict } {
  const { session, tracker } = trackedSession({ packs, memory: options.memory, fallbackModel: options.fallbackModel });
  for (const line of lines) session.push(line);
  if (options.idleMs) session.tick({ idleMs: options.idleMs });
  session.end();
  return { tracker, verdict: session.verdict! };
}

function healthy(): StartRecord {
  const { tracker, verdict } = run([...sglangHealthyStart(), READY]);
  return tracker.toRecord({ ...at, verdict });
}

/** The healthy start up to `Load weight begin`, then nothing: the load hangs. */
const hangInLoad = (): string[] => sglangHealthyStart().slice(0, 6);
/** The healthy start up to `Init torch distributed begin`, then nothing: NCCL init hangs. */
const hangInInit = (): string[] => sglangHealthyStart().slice(0, 3);

describe('StartTracker', () => {
  it('records what the start was and how long each stage took', () => {
    expect(healthy()).toEqual({
      v: 1,
      when: '2025-06-01T10:00:00.000Z',
      host: 'gpu-01',
      source: 'watch',
      log: '/data/server.log',
      family: 'sglang',
      model: 'Qwen/Qwen2.5-7B',
      model_from: 'log',
      tp: 2,
      verdict: 'ready',
      stage: 'ready',
      total_ms: 35_000,
      stages_ms: { none: 0, launch: 5000, distributed_init: 2000, load_weights: 14_000, kv_cache: 1000, cuda_graph: 10_000, http_server: 1000, warmup: 2000 },
    });
  });

  it('calls a hang stalled after 3 × the slowest earlier init + 2 min, not the pack’s 15 min, and says why', () => {
    const memory: Memory = { records: [healthy(), healthy()], host: 'gpu-01', learn: true };
    const withHistory = run(hangInInit(), { memory, idleMs: 3 * HOUR }).verdict;
    const without = run(hangInInit(), { idleMs: 3 * HOUR }).verdict;
    expect(without).toMatchObject({ verdict: 'stalled', stage: 'distributed_init', silentMs: 15 * 60_000, budget: { source: 'pack' } });
    expect(withHistory).toMatchObject({
      verdict: 'stalled',
      stage: 'distributed_init',
      silentMs: 3 * 2000 + 120_000,
      budget: { ms: 126_000, source: 'learned', detail: 'learned from 2 starts of this model here (slowest 2s)' },
    });
    expect(without.at - withHistory.at).toBe(15 * 60_000 - 126_000);
    expect(formatVerdict(withHistory, { color: false })).toContain('silent for 2m06s (budget 2m06s: learned from 2 starts of this model here (slowest 2s))');
  });

  it('13.5: a silent load keeps the pack’s 75 min however fast the warm loads were: a cold one may download', () => {
    const memory: Memory = { records: [healthy(), healthy()], host: 'gpu-01', learn: true };
    const { tracker, verdict } = run(hangInLoad(), { memory, idleMs: 3 * HOUR });
    expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'load_weights', silentMs: 75 * 60_000, budget: { source: 'pack' } });
    expect(tracker.expectationFor('load_weights')).toMatchObject({ scope: 'setup', maxMs: 14_000 });
  });

  it('a slow but normal start of the same model is no stall', () => {
    const memory: Memory = { records: [healthy(), healthy()], host: 'gpu-01', learn: true };
    // 2m30s without a line in load_weights: beyond the 14 s seen, within 3 × 14 s + 2 min.
    const slow = sglangHealthyStart().map((line) => line.replace(/12:00:(\d\d)\]/, (m, s) => (Number(s) >= 20 ? `12:02:${String(Number(s) + 10).padStart(2, '0')}]` : m)));
    expect(run([...slow, READY.replace('12:00:35', '12:02:45')], { memory }).verdict.verdict).toBe('ready');
  });

  it('--no-learn keeps the pack budgets but still knows what to expect', () => {
    const memory: Memory = { records: [healthy(), healthy()], host: 'gpu-01', learn: false };
    const { tracker, verdict } = run(hangInLoad(), { memory, idleMs: 3 * HOUR });
    expect(verdict.budget).toMatchObject({ source: 'pack', ms: 75 * 60_000 });
    expect(tracker.expectationFor('load_weights')).toEqual({ scope: 'setup', starts: 2, minMs: 14_000, medianMs: 14_000, maxMs: 14_000 });
  });

  it('learns once the model is known: before the argument dump, only the family speaks', () => {
    const memory: Memory = { records: [healthy(), healthy()], host: 'gpu-01', learn: true };
    const { session, tracker } = trackedSession({ packs, family: 'sglang', memory });
    expect(tracker.budgetOf('distributed_init')).toMatchObject({ source: 'pack' });
    session.push(sglangHealthyStart()[0]!);
    expect(tracker.startFacts).toEqual({ model: 'Qwen/Qwen2.5-7B', tp: 2 });
    expect(tracker.budgetOf('distributed_init')).toMatchObject({ source: 'learned', ms: 126_000 });
  });

  it('forgets the earlier run when the log shows a new one', () => {
    const second = sglangHealthyStart().map((line) => line.replace('[2025-03-08 12:00', '[2025-03-08 13:00').replace("'Qwen/Qwen2.5-7B', tp_size=2", "'other/model', tp_size=1"));
    const { tracker, verdict } = run([...sglangHealthyStart().slice(0, 8), ...second, READY.replace('12:00', '13:00')]);
    const record = tracker.toRecord({ ...at, verdict });
    expect(record).toMatchObject({ model: 'other/model', tp: 1, total_ms: 35_000 });
    expect(record.stages_ms.load_weights).toBe(14_000);
  });

  it('a log that names no model is recorded under the stand-in name', () => {
    const lines = sglangHealthyStart().slice(1);
    const { tracker, verdict } = run([...lines, READY], { fallbackModel: 'my-log' });
    const record = tracker.toRecord({ ...at, verdict });
    expect(record).toMatchObject({ model: 'my-log', model_from: 'log-name' });
    expect('tp' in record).toBe(false);
  });

  it('estimates the progress of the current stage', () => {
    const { session, tracker } = trackedSession({ packs, family: 'sglang' });
    const events = sglangHealthyStart()
      .slice(0, 7)
      .flatMap((line) => session.push(line));
    const last = events.filter((e) => e.type === 'progress').at(-1)!;
    expect(tracker.estimateFor(last)).toMatchObject({ current: 4, total: 4, etaMs: 0, basis: 'tqdm' });
    expect(tracker.progressEstimate()).toMatchObject({ current: 4, total: 4 });
  });

  it('follows a session from outside, through its events: the session gives the same events and verdict with or without it', () => {
    const lines = [...sglangHealthyStart(), READY];
    const plain = new Session({ packs });
    const { session, tracker } = trackedSession({ packs });
    expect(trackerOf(plain)).toBeUndefined();
    expect(trackerOf(session)).toBe(tracker);
    expect(session).toBeInstanceOf(Session);
    expect(Object.getPrototypeOf(session)).toBe(Session.prototype);
    const seen = (s: Session): unknown[] => [...lines.flatMap((line) => s.push(line)), ...s.end()];
    expect(seen(session)).toEqual(seen(plain));
    expect(tracker.toRecord({ ...at, verdict: session.verdict! })).toMatchObject({ verdict: 'ready', model: 'Qwen/Qwen2.5-7B' });
  });
});
