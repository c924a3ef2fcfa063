// Issue 29: under `run`, a silent log is judged with what the server's processes do (/proc): a slow load is
// never STALLED and shows its progress; a hang is STALLED after --idle, a spin after --spin.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiGet } from '../../src/serve/api-client.js';
import type { StatusSnapshot } from '../../src/status/status-snapshot.js';
import { statusLineText } from '../../src/status/status-text.js';
import { runMain } from '../helpers/run-main.js';
import { freePort, runScratch, runSpinup, server } from './run-harness.js';

const { tracker, dir } = runScratch();
const MB = 1 << 20;

function modelDir(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function doneAt(model: string): number {
  return Number(readFileSync(join(model, 'done-at'), 'utf8'));
}

async function silentLoad(name: string, load: string, args: string[], extra: string[] = []) {
  const model = modelDir(name);
  const run = await runSpinup({ tracker, dir, args: ['--json', '--grace', '2s', ...args], server: server('silent-load.mjs', '--model', model, '--load', load, ...extra) });
  return { run, model, progress: run.events.filter((e) => e.type === 'load_progress') };
}

describe('spinup run: a silent log judged by the process tree', () => {
  it('a server reading its weights slowly is not STALLED while it reads, and shows bytes, rate and time left', async () => {
    // 48 MB at 2 MB every 250 ms: some 6 s of reading in silence, twice --idle.
    const { run, model, progress } = await silentLoad('slow-reader', 'read', ['--idle', '3s'], ['--size-mb', '48']);
    const verdict = run.verdicts[0]!;
    expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'load_weights', decided_by: 'activity', reason: expect.stringMatching(/^no log line, no I\/O and no CPU for \d+s in stage load_weights$/) });
    // The stall came only once the reading was over: reading is not a hang.
    expect(verdict.wall_ms as number).toBeGreaterThan(doneAt(model));
    expect(progress.length).toBeGreaterThan(0);
    const last = progress.at(-1)!;
    expect(last).toMatchObject({ stage: 'load_weights', total_bytes: 48 * MB, final: true });
    expect(last.read_bytes as number).toBeGreaterThanOrEqual(40 * MB);
    expect(last.read_bytes as number).toBeLessThanOrEqual(56 * MB);
    const reading = progress.find((e) => (e.read_bytes as number) > 0 && (e.read_bytes as number) < 40 * MB && e.eta_ms !== undefined);
    expect(reading, JSON.stringify(progress)).toBeDefined();
    expect(reading!.bytes_per_second as number).toBeGreaterThan(0);
    expect(reading!.text).toMatch(/^read [\d.]+ [kMG]?B of 50 MB, [\d.]+ [kMG]?B\/s, about \d+s left$/);
  });

  it('the status API and /metrics carry the load progress while it reads', async () => {
    const model = modelDir('status-reader');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let seen: Promise<[StatusSnapshot, string]> | undefined;
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--grace', '2s', '--idle', '3s', '--listen', `127.0.0.1:${port}`],
      server: server('silent-load.mjs', '--model', model, '--load', 'read', '--size-mb', '48'),
      onStdout: (text) => {
        if (seen || !/"type":"load_progress"[^\n]*"bytes_per_second":[1-9]/.test(text)) return;
        seen = Promise.all([apiGet({ url }, '/v1/status', 5_000).then((r) => JSON.parse(r.body) as StatusSnapshot), apiGet({ url }, '/metrics', 5_000).then((r) => r.body)]);
      },
    });
    expect(run.code).toBe(2);
    expect(seen, 'no load_progress event with a rate').toBeDefined();
    const [status, metrics] = await seen!;
    expect(status.stage).toBe('load_weights');
    expect(status.load_progress).toMatchObject({ total_bytes: 48 * MB, text: expect.stringMatching(/^read [\d.]+ [kMG]?B of 50 MB/) });
    expect(status.load_progress!.read_bytes).toBeGreaterThan(0);
    expect(metrics).toMatch(/^spinup_load_read_bytes\{[^}]*\} [1-9]\d*$/m);
    expect(metrics).toMatch(new RegExp(`^spinup_load_checkpoint_bytes\\{[^}]*\\} ${48 * MB}$`, 'm'));
    expect(statusLineText(status)).toMatch(/^load_weights \S+ \(read [\d.]+ [kMG]?B of 50 MB/);
  });

  it('the history keeps what the load read, and the report draws it on the load_weights bar', async () => {
    const history = join(dir, 'load-history.jsonl');
    const { run } = await silentLoad('recorded-reader', 'read', ['--idle', '3s', '--history', history], ['--size-mb', '24', '--chunk-mb', '4']);
    expect(run.code).toBe(2);
    const record = JSON.parse(readFileSync(history, 'utf8').trim().split('\n').at(-1)!) as { load?: { read_bytes: number; total_bytes: number } };
    expect(record.load?.total_bytes).toBe(24 * MB);
    expect(record.load!.read_bytes).toBeGreaterThanOrEqual(20 * MB);
    const out = join(dir, 'load-report.html');
    const report = await runMain(['report', '--history', '--history-file', history, '-o', out], { env: process.env });
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html, html.match(/<polyline class="progress"[^>]*><title>[^<]*<\/title>/)?.[0]).toMatch(/<title>2[1-7]\/25 MB of the checkpoint read \(\/proc\)<\/title>/);
  });

  it('a silent sleeper is STALLED after --idle, with the words of the issue', async () => {
    const { run } = await silentLoad('sleeper', 'sleep', ['--idle', '3s'], ['--size-mb', '1']);
    expect(run.code).toBe(2);
    expect(run.verdicts[0]).toMatchObject({
      verdict: 'stalled',
      stage: 'load_weights',
      decided_by: 'activity',
      reason: expect.stringMatching(/^no log line, no I\/O and no CPU for \d+s in stage load_weights$/),
      budget: { ms: 3000, detail: expect.stringContaining('--idle 3s') },
    });
  });

  it('a silent CPU spinner with no I/O is STALLED after --spin, not after --idle', async () => {
    const { run } = await silentLoad('spinner', 'spin', ['--idle', '2s', '--spin', '6s'], ['--size-mb', '1']);
    expect(run.code).toBe(2);
    const verdict = run.verdicts[0]!;
    expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'load_weights', decided_by: 'activity', budget: { ms: 6000, detail: expect.stringContaining('--spin 6s') } });
    expect(verdict.reason).toMatch(/^no log line and no I\/O for \d+s in stage load_weights, only CPU: a spin/);
    expect(verdict.silent_ms as number).toBeGreaterThanOrEqual(6000);
  });

  it('workers that come and go during the load are summed once each', async () => {
    // A paced worker (seen, then reaped), a `cat` too quick to be sampled, a worker under sh: 3 x 32 MB.
    const { run, model, progress } = await silentLoad('workers', 'workers', ['--idle', '3s'], ['--size-mb', '32', '--chunk-mb', '4', '--every-ms', '100']);
    expect(run.verdicts[0]).toMatchObject({ verdict: 'stalled', decided_by: 'activity' });
    expect(run.verdicts[0]!.wall_ms as number).toBeGreaterThan(doneAt(model));
    const last = progress.at(-1)!;
    expect(last.final).toBe(true);
    const read = last.read_bytes as number;
    // Counted twice (a reaped child in its parent's counters too) would be 192 MB or more; lost would be less than 96.
    expect(read).toBeGreaterThanOrEqual(96 * MB);
    expect(read).toBeLessThan(96 * MB + 8 * MB);
  });
});
