/**
 * The claim of learned budgets, on the shipped fixtures: with a history built from the healthy
 * (ready) ones, every fixture keeps its expected verdict, and every stalled fixture is called
 * stalled no later than with the pack's budgets (most of them much sooner).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readHistory } from '../../src/history/history-store.js';
import { ReplayMemory } from '../../src/replay/replay-memory.js';
import { formatVerdict } from '../../src/cli/format/verdict-text.js';
import { discoverFixtures } from '../../src/replay/discover.js';
import { readExpectation } from '../../src/replay/expectation.js';
import { runCase, type CaseResult } from '../../src/replay/run-case.js';
import { shippedPack } from '../helpers/classify.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const packs = [shippedPack('sglang'), shippedPack('vllm')];
const { pairs } = discoverFixtures(['fixtures/sglang', 'fixtures/vllm'], root);
const name = (r: CaseResult): string => `${basename(dirname(r.log))}/${basename(r.log, '.log')}`;
const options = { host: 'replay-host', cwd: root, now: () => new Date('2025-06-01T10:00:00Z') };

describe('replay with budgets learned from the healthy fixtures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spinup-learn-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const history = join(dir, 'history.jsonl');
  // Only the fixtures that must end ready: one that may also end incomplete teaches no budget.
  const healthy = pairs.filter((pair) => readExpectation(pair.expect).verdict.every((v) => v === 'ready'));
  const recorder = new ReplayMemory({ ...options, historyPath: history });
  for (const pair of healthy) recorder.runCase(pair, { packs });

  const baseline = pairs.map((pair) => runCase(pair, { packs }));
  const learner = new ReplayMemory({ ...options, learnFrom: history });
  const learned = pairs.map((pair) => learner.runCase(pair, { packs }));

  it('recorded one start per healthy fixture', () => {
    const read = readHistory(history);
    expect(read.skipped).toEqual([]);
    expect(read.records).toHaveLength(healthy.length);
    expect(recorder.summary()).toEqual([`recorded ${healthy.length} starts in ${history}`]);
    expect(read.records.every((r) => r.verdict === 'ready' && r.source === 'replay' && r.host === 'replay-host')).toBe(true);
  });

  it('keeps a fixture whose log names no model under its file name', () => {
    const other = join(dir, 'nameless.jsonl');
    const memory = new ReplayMemory({ ...options, historyPath: other });
    memory.runCase(pairs.find((p) => p.log.endsWith('sglang/44-docs-ci-2026-02-eagle3-loglevel-warning-no-ready-marker.log'))!, { packs });
    expect(readHistory(other).records[0]).toMatchObject({
      log: 'fixtures/sglang/44-docs-ci-2026-02-eagle3-loglevel-warning-no-ready-marker.log',
      family: 'sglang',
      model: '44-docs-ci-2026-02-eagle3-loglevel-warning-no-ready-marker',
      model_from: 'log-name',
      verdict: 'incomplete',
      stages_ms: { none: 14_000, load_weights: 13_000, cuda_graph: 9_000 },
    });
  });

  it('every fixture keeps its expected verdict', () => {
    expect(baseline.filter((r) => !r.pass).map(name)).toEqual([]);
    expect(learned.filter((r) => !r.pass).map((r) => `${name(r)}: ${JSON.stringify(r.mismatches)}`)).toEqual([]);
    expect(learner.warnings).toEqual([]);
  });

  it('every stalled fixture is called stalled no later than with the pack budgets, most much sooner', () => {
    const stalled = baseline.flatMap((before, i) => (before.verdict.verdict === 'stalled' ? [{ before, after: learned[i]! }] : []));
    expect(stalled.length).toBeGreaterThanOrEqual(8);
    for (const { before, after } of stalled) {
      expect(after.verdict.verdict, name(before)).toBe('stalled');
      expect(after.verdict.at, name(before)).toBeLessThanOrEqual(before.verdict.at);
    }
    const sooner = stalled.filter(({ before, after }) => after.verdict.at < before.verdict.at);
    expect(sooner.map(({ before }) => name(before))).toEqual(
      expect.arrayContaining([
        'sglang/10-tp2-stuck-nccl-init-hang',
        'sglang/15-tp2-hang-cudagraph-flashinfer-jit',
        'sglang/19-multinode-h20-node1-hang-after-nccl-init',
        'vllm/09-v0251-dgx-spark-dflash-nvfp4-silent-stall-oomkill-cicc',
        'vllm/61-v0190-rocm-tp2-cudagraph-capture-hang-shm-broadcast-hung',
      ]),
    );
    for (const { after } of sooner) expect(after.verdict.budget?.source).toBe('learned');
  });

  it('the verdict says which budget applied and where it came from', () => {
    const hang = learned.find((r) => name(r) === 'sglang/15-tp2-hang-cudagraph-flashinfer-jit')!;
    expect(hang.verdict.budget).toEqual({ ms: 1_293_000, source: 'learned', detail: 'learned from 16 sglang starts on this host, any model (slowest 6m31s)' });
    expect(formatVerdict(hang.verdict, { color: false, family: 'sglang' })).toContain(
      'silent for 21m33s (budget 21m33s: learned from 16 sglang starts on this host, any model (slowest 6m31s))',
    );
  });

  it('load_weights is learned only from the same model: a huge model loading slowly is no stall', () => {
    const glm = learned.find((r) => name(r) === 'sglang/02-rocm-glm5-tp8-cudagraph-typeerror')!;
    expect(glm.verdict).toMatchObject({ verdict: 'failed', stage: 'cuda_graph' }); // 888 s in load_weights
    const pod = learned.find((r) => name(r) === 'vllm/59-v1-k8s-runai-streamer-tp8-pod-dies-silently-oomkilled')!;
    expect(pod.verdict.budget).toMatchObject({ source: 'pack' });
  });
});
