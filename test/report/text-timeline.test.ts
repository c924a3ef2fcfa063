/** `explain --timeline` and `history --timeline`: text bars within 80 columns, colour only when asked for. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { AFTER_READY, FAILED, READY, STALLED } from './fixture-trace.js';

const width = (text: string): number => Math.max(...stripVTControlCharacters(text).split('\n').map((line) => [...line].length));

describe('spinup explain --timeline', () => {
  it.for([
    { name: 'ready', file: READY, code: 0 },
    { name: 'failed', file: FAILED, code: 1 },
    { name: 'stalled', file: STALLED, code: 2 },
    { name: 'after-ready', file: AFTER_READY, code: 0 },
  ])('draws the $name fixture in 80 columns', async ({ name, file, code }) => {
    const run = await runMain(['explain', '--timeline', file]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(code);
    expect(width(run.stdout)).toBeLessThanOrEqual(80);
    expect(run.stdout).not.toMatch(/\x1b\[/);
    await expect(run.stdout).toMatchFileSnapshot(`__snapshots__/explain-timeline-${name}.txt`);
  });

  it('colours on a TTY, and never with NO_COLOR', async () => {
    const tty = await runMain(['explain', '--timeline', FAILED], { tty: true });
    expect(tty.stdout).toMatch(/\x1b\[31mFAILED crash/);
    const plain = await runMain(['explain', '--timeline', FAILED], { tty: true, env: { NO_COLOR: '1' } });
    expect(plain.stdout).not.toMatch(/\x1b\[/);
    expect(stripVTControlCharacters(tty.stdout)).toBe(plain.stdout);
  });

  it('refuses --timeline with --json', async () => {
    const run = await runMain(['explain', '--timeline', '--json', READY]);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/--timeline draws for people; --json is for scripts/);
  });
});

describe('spinup history --timeline', () => {
  let dir: string;
  let previousTz: string | undefined;
  const record = (when: string, model: string, verdict: string, stages: Record<string, number>, extra: Record<string, unknown> = {}): string => {
    const total = Object.values(stages).reduce((a, b) => a + b, 0);
    return JSON.stringify({ v: 1, when, host: 'gpu-1', source: 'watch', family: 'sglang', model, tp: 2, verdict, stage: Object.keys(stages).at(-1), total_ms: total, stages_ms: stages, ...extra });
  };

  beforeAll(() => {
    previousTz = process.env.TZ;
    process.env.TZ = 'UTC';
    dir = mkdtempSync(join(tmpdir(), 'spinup-history-timeline-'));
    writeFileSync(
      join(dir, 'history.jsonl'),
      [
        record('2026-03-01T10:00:00Z', 'Qwen/QwQ-32B', 'ready', { launch: 7000, distributed_init: 2000, load_weights: 90_000, kv_cache: 1000, cuda_graph: 60_000, http_server: 1000 }),
        record('2026-03-02T10:00:00Z', 'Qwen/QwQ-32B', 'failed', { launch: 6000, distributed_init: 2000, load_weights: 40_000 }, { cause: 'gpu_oom' }),
        record('2026-03-03T10:00:00Z', 'deepseek-ai/DeepSeek-R1', 'stalled', { launch: 9000, distributed_init: 300_000 }, { budget: { ms: 240_000, source: 'pack', detail: 'pack sglang, stage distributed_init' } }),
      ].join('\n') + '\n',
    );
  });
  afterAll(() => {
    if (previousTz === undefined) delete process.env.TZ;
    else process.env.TZ = previousTz;
  });

  it('draws one row per start on one axis, stages by letter, in 80 columns', async () => {
    const run = await runMain(['history', '--timeline', '--history', join(dir, 'history.jsonl')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(width(run.stdout)).toBeLessThanOrEqual(80);
    await expect(run.stdout.replace(dir, 'DIR')).toMatchFileSnapshot('__snapshots__/history-timeline.txt');
  });

  it('filters by --model like the table does', async () => {
    const run = await runMain(['history', '--timeline', '--model', 'qwq', '--history', join(dir, 'history.jsonl')]);
    expect(run.stdout).toMatch(/^2 starts matching "qwq"/);
    expect(run.stdout).not.toMatch(/DeepSeek/);
  });
});
