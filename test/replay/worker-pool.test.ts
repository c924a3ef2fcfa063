/**
 * The replay pool with real worker threads: cases come back in discovery order however the
 * threads answer, the main thread replays some too, and a worker that throws or dies stops the
 * replay at its case with its error (which main reports as an internal error, exit 70).
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPacks } from '../../src/replay/load-families.js';
import type { ReplayCase, ReplayedCase } from '../../src/replay/replay-case.js';
import { replayOnWorkers, workerEntry } from '../../src/replay/worker-pool.js';
import { repoRoot } from '../helpers/run-main.js';

const ANSWERING = new URL('../helpers/replay-workers/answering-worker.mjs', import.meta.url);
const FAILING = new URL('../helpers/replay-workers/failing-worker.mjs', import.meta.url);

/** Cases named `NN-name.log`, each with an expectation (read by the main thread before a case is handed out). */
function corpus(names: string[]): ReplayCase[] {
  const dir = mkdtempSync(join(tmpdir(), 'spinup-pool-'));
  return names.map((name) => {
    const log = join(dir, `${name}.log`);
    const expect = join(dir, `${name}.expect.yaml`);
    copyFileSync(join(repoRoot, 'fixtures/vllm/02-v085post1-smollm-single-gpu-ready.log'), log);
    writeFileSync(expect, 'verdict: ready\nstage: ready\n');
    return { kind: 'pair', pair: { log, expect } };
  });
}

const names = (count: number, odd: Record<number, string> = {}): string[] => Array.from({ length: count }, (_, i) => `${String(i).padStart(2, '0')}-${odd[i] ?? 'ready'}`);

describe('replayOnWorkers', () => {
  it('starts the build\'s one-script bundle of the worker, which replays real fixtures as the modules do', async () => {
    const entry = workerEntry();
    expect(entry.pathname.endsWith('/dist/replay/replay-worker.cjs')).toBe(true);
    const cases = corpus(names(6));
    const seen: ReplayedCase[] = [];
    await replayOnWorkers({ cases, workers: 1, coverage: false, onCase: (c) => seen.push(c) });
    expect(seen.map((c) => c.log)).toEqual(cases.map((c) => (c.kind === 'pair' ? c.pair.log : '')));
    for (const c of seen) expect(c).toMatchObject({ pass: true, family: 'vllm', verdict: { verdict: 'ready' } });
  });

  it('reports cases in discovery order although the workers answer out of order', async () => {
    const cases = corpus(names(12));
    const seen: string[] = [];
    await replayOnWorkers({ cases, workers: 2, coverage: false, workerEntry: ANSWERING, onCase: (c) => seen.push(c.log) });
    expect(seen).toEqual(cases.map((c) => (c.kind === 'pair' ? c.pair.log : '')));
  });

  it('the main thread replays cases too, between the workers', async () => {
    const cases = corpus(names(30));
    const seen: ReplayedCase[] = [];
    await replayOnWorkers({ cases, workers: 1, local: { packs: loadPacks() }, coverage: false, workerEntry: ANSWERING, onCase: (c) => seen.push(c) });
    expect(seen.map((c) => c.log)).toEqual(cases.map((c) => (c.kind === 'pair' ? c.pair.log : '')));
    const here = seen.filter((c) => c.family === 'vllm');
    expect(here.length).toBeGreaterThan(0);
    expect(here.length).toBeLessThan(cases.length);
    for (const c of here) expect(c).toMatchObject({ pass: true, verdict: { verdict: 'ready' } });
  });

  it('a worker that throws: the cases before its case are reported, then its error, with the stack of the worker', async () => {
    const cases = corpus(names(8, { 5: 'throws' }));
    const seen: string[] = [];
    const replayed = replayOnWorkers({ cases, workers: 2, coverage: false, workerEntry: ANSWERING, onCase: (c) => seen.push(c.log) });
    const error = await replayed.then(() => undefined, (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).toMatch(/^a bug met while replaying .*05-throws\.log$/);
    expect(error?.stack).toContain('answering-worker.mjs');
    // Not an operating-system error (66) nor a pack's (78): main reports it as a bug, exit 70.
    expect(error).not.toHaveProperty('syscall');
    expect(seen).toEqual(cases.slice(0, 5).map((c) => (c.kind === 'pair' ? c.pair.log : '')));
  });

  it('a worker thread that ends in the middle fails the case it held', async () => {
    const cases = corpus(names(6, { 2: 'exits' }));
    const seen: string[] = [];
    const error = await replayOnWorkers({ cases, workers: 1, coverage: false, workerEntry: ANSWERING, onCase: (c) => seen.push(c.log) }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/^a replay worker thread stopped \(exit code 3\) while replaying .*02-exits\.log$/);
    expect(seen).toHaveLength(2);
  });

  it('a worker that cannot start: its error, and no case reported', async () => {
    const seen: string[] = [];
    const error = await replayOnWorkers({ cases: corpus(names(4)), workers: 2, coverage: false, workerEntry: FAILING, onCase: (c) => seen.push(c.log) }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(RangeError);
    expect(error?.message).toBe('the worker could not start');
    expect(seen).toEqual([]);
  });

  it('an aborted signal stops the replay', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const replayed = replayOnWorkers({ cases: corpus(names(40)), workers: 1, coverage: false, workerEntry: ANSWERING, signal: controller.signal, onCase: (c) => {
      seen.push(c.log);
      if (seen.length === 3) controller.abort();
    } });
    await expect(replayed).rejects.toThrow('interrupted');
    expect(seen.length).toBeLessThan(40);
  });
});
