import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatProgress, formatRate, ProgressTracker, tqdmFigures, type ProgressEstimate } from '../../src/core/eta.js';
import type { ClassifierEvent } from '../../src/core/events.js';
import { Session } from '../../src/core/session.js';
import { logLines } from '../../src/replay/run-case.js';
import { shippedPack } from '../helpers/classify.js';

const fixture = (name: string): string => readFileSync(fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url)), 'utf8');

/** Replays log lines on their own time; the estimate after each line number that had progress. */
function estimates(text: string, family: 'sglang' | 'vllm', edit: (line: string) => string = (l) => l): Map<number, ProgressEstimate> {
  const session = new Session({ packs: [shippedPack(family)], family });
  const tracker = new ProgressTracker();
  const byLine = new Map<number, ProgressEstimate>();
  logLines(text).forEach((line, index) => {
    for (const event of session.push(edit(line))) {
      const estimate = tracker.observe(event);
      if (estimate) byLine.set(index + 1, estimate);
    }
  });
  return byLine;
}

describe('ETA from real progress lines', () => {
  it('sglang/09: 14 shards, rate and time left from tqdm', () => {
    const byLine = estimates(fixture('sglang/09-tp4-l4-qwq32b-ready-health-polls.log'), 'sglang');
    // line 36: `4/14 [00:02<00:05,  1.77it/s]`
    expect(byLine.get(36)).toMatchObject({ stage: 'load_weights', unit: 'shards', current: 4, total: 14, ratePerS: 1.77, etaMs: 5000, basis: 'tqdm' });
    expect(formatProgress(byLine.get(36)!)).toBe('4/14 shards, 1.8/s, ~5s left');
    const first = byLine.get(32)!; // `0/14 [00:00<?, ?it/s]`
    expect([first.current, first.ratePerS, first.etaMs]).toEqual([0, undefined, undefined]);
    expect(formatProgress(byLine.get(46)!)).toBe('14/14 shards, 1.9/s');
  });

  it('sglang/37: a 163-shard bar seen only at its end (1h09m, 26.68 s per shard)', () => {
    const byLine = estimates(fixture('sglang/37-multinode-head-gloo-peer-closed-during-cudagraph.log'), 'sglang');
    const done = byLine.get(2)!;
    expect(done).toMatchObject({ current: 163, total: 163, etaMs: 0, basis: 'tqdm' });
    expect(done.ratePerS).toBeCloseTo(1 / 26.68, 6);
    expect(formatProgress(done)).toBe('163/163 shards, 2.2/min');
  });

  it('vllm/09: 49 shards slowing down to half a minute each', () => {
    const byLine = estimates(fixture('vllm/09-v0251-dgx-spark-dflash-nvfp4-silent-stall-oomkill-cicc.log'), 'vllm');
    // line 50: `11/49 [04:36<21:27, 33.87s/it]`
    const e = byLine.get(50)!;
    expect(e).toMatchObject({ current: 11, total: 49, etaMs: (21 * 60 + 27) * 1000, basis: 'tqdm' });
    expect(formatProgress(e)).toBe('11/49 shards, 1.8/min, ~21m27s left');
  });

  it('vllm/09 without tqdm rates: the rate comes from the last two minutes of samples', () => {
    const noRate = (line: string): string => line.replace(/, +[\d.]+(?:s\/it|it\/s)\]/, ']');
    const byLine = estimates(fixture('vllm/09-v0251-dgx-spark-dflash-nvfp4-silent-stall-oomkill-cicc.log'), 'vllm', noRate);
    const e = byLine.get(50)!;
    // Window: 7/49 at 2:13 (the last sample older than 2 minutes) to 11/49 at 4:36.
    expect(e.basis).toBe('samples');
    expect(e.ratePerS).toBeCloseTo(4 / 143, 6);
    expect(e.etaMs).toBe(Math.round((38 / (4 / 143)) * 1000));
  });
});

describe('ProgressTracker', () => {
  const line = (text: string, at: number) => ({ lineNo: 1, text, at });
  const progress = (at: number, current: number, total?: number, percent?: number): ClassifierEvent => ({
    type: 'progress',
    stage: 'cuda_graph',
    at,
    line: line(`Capturing ${current}/${total}`, at),
    progress: { rule: 'r', unit: 'batches', current, total, percent },
  });

  it('computes a rate from log times when tqdm shows none, and counts down to now', () => {
    const tracker = new ProgressTracker();
    tracker.observe(progress(0, 0, 100));
    expect(tracker.observe(progress(500, 1, 100))!.ratePerS).toBeUndefined(); // under a second: no rate yet
    const e = tracker.observe(progress(10_000, 20, 100))!;
    expect(e).toMatchObject({ ratePerS: 2, etaMs: 40_000, basis: 'samples' });
    expect(tracker.estimate(25_000)!.etaMs).toBe(25_000);
    expect(tracker.estimate(90_000)!.etaMs).toBe(0);
    expect(formatProgress(tracker.estimate(25_000)!)).toBe('20/100 batches, 2.0/s, ~25s left');
  });

  it('starts over on a new stage, a restart, or a bar that runs again (another rank, the draft model)', () => {
    const tracker = new ProgressTracker();
    tracker.observe(progress(0, 0, 10));
    tracker.observe(progress(10_000, 5, 10));
    expect(tracker.observe(progress(11_000, 1, 10))!.ratePerS).toBeUndefined();
    tracker.observe({ type: 'stage', stage: 'http_server', from: 'cuda_graph', at: 12_000, line: line('x', 12_000), rule: 's', reentered: false });
    expect(tracker.estimate()).toBeUndefined();
  });

  it('reads a bar that shows only a percentage as percent', () => {
    const tracker = new ProgressTracker();
    tracker.observe(progress(0, 0, undefined, 0));
    const e = tracker.observe(progress(20_000, 40, undefined, 40))!;
    expect(e).toMatchObject({ unit: '%', current: 40, total: 100, etaMs: 30_000 });
    expect(formatProgress(e)).toBe('40%, ~30s left');
  });
});

describe('formatting', () => {
  it.for<[number, string]>([
    [42, '42/s'],
    [2.2, '2.2/s'],
    [1 / 26.68, '2.2/min'],
    [1 / 300, '1 per 5m00s'],
  ])('rate %f reads %s', ([rate, text]) => {
    expect(formatRate(rate)).toBe(text);
  });

  it.for<[string, ReturnType<typeof tqdmFigures>]>([
    ['4/14 [00:02<00:05,  1.77it/s]', { elapsedMs: 2000, remainingMs: 5000, ratePerS: 1.77 }],
    ['163/163 [1:09:28<00:00, 26.68s/it]', { elapsedMs: 4_168_000, remainingMs: 0, ratePerS: 1 / 26.68 }],
    ['0/14 [00:00<?, ?it/s]', { elapsedMs: 0 }],
    ['no bar here', undefined],
  ])('tqdm figures of %s', ([text, figures]) => {
    expect(tqdmFigures(text)).toEqual(figures);
  });
});
