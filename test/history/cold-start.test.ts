/**
 * Issue 13.5: learned budgets must never stall a legitimately slow start. Two warm starts of a
 * real fixture teach the history; the same start with a cold, silent load (page cache empty, a
 * download: no shard bar, 30x the warm load time) must still end READY.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHistory } from '../../src/history/history-store.js';
import { repoRoot, runMain } from '../helpers/run-main.js';

const QWQ = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const dir = mkdtempSync(join(tmpdir(), 'spinup-cold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STAMP = /^\[(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})/;

/**
 * The fixture with its load made `slowerBy` times longer and silent: the shard bar is dropped
 * and every timestamp from `Load weight end` on moves later by the extra time.
 */
function coldCopy(text: string, slowerBy: number): { text: string; loadMs: number } {
  const lines = text.split('\n');
  const at = (line: string): number => {
    const m = STAMP.exec(line)!;
    return Date.parse(`${m[1]}T${m[2]}Z`);
  };
  const begin = at(lines.find((l) => l.includes('Load weight begin'))!);
  const end = at(lines.find((l) => l.includes('Load weight end'))!);
  const extra = (end - begin) * (slowerBy - 1);
  let shifted = false;
  const out = lines
    .filter((line) => !line.startsWith('Loading safetensors checkpoint shards'))
    .map((line) => {
      shifted ||= line.includes('Load weight end');
      const m = STAMP.exec(line);
      if (!shifted || !m) return line;
      const moved = new Date(at(line) + extra).toISOString();
      return `[${moved.slice(0, 10)} ${moved.slice(11, 19)}${line.slice(m[0].length)}`;
    });
  return { text: out.join('\n'), loadMs: (end - begin) * slowerBy };
}

describe('13.5: learned budgets and a cold start', () => {
  it('13.5: a cold start 30x slower than two warm starts ends READY', async () => {
    const history = join(dir, 'history.jsonl');
    for (let i = 0; i < 2; i++) expect((await runMain(['watch', '--no-follow', '--history', history, QWQ])).code).toBe(0);
    expect(readHistory(history).records.map((r) => [r.verdict, r.stages_ms.load_weights])).toEqual([
      ['ready', 8000],
      ['ready', 8000],
    ]);

    const cold = coldCopy(readFileSync(QWQ, 'utf8'), 30);
    expect(cold.loadMs).toBe(240_000);
    const file = join(dir, 'cold.log');
    writeFileSync(file, cold.text);
    const run = await runMain(['watch', '--no-follow', '--history', history, file]);
    expect(run.stdout).toMatch(/^READY sglang/);
    expect(run.code).toBe(0);
    // The history still teaches what is usual, it just does not call a cold load a stall.
    expect(run.stderr).toContain('stage load_weights  line 24  usually 8s here');
    expect(readHistory(history).records.at(-1)).toMatchObject({ verdict: 'ready', stages_ms: { load_weights: 240_000 } });
  });

  it('13.5: the same cold copy is READY without learning, so the copy itself is a healthy start', async () => {
    const file = join(dir, 'cold-alone.log');
    writeFileSync(file, coldCopy(readFileSync(QWQ, 'utf8'), 30).text);
    const run = await runMain(['watch', '--no-follow', '--no-history', file]);
    expect(run.stdout).toMatch(/^READY sglang/);
  });
});
