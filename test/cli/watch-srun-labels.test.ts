/**
 * Issue 25 item 13: `srun --label` output read without --srun. Every line starts with its task id
 * (`0: [2025-03-10 16:19:28] server_args=...`, ` 3: ` padded in larger jobs); the label is peeled
 * like a collector's prefix, so the server's own timestamps behind it keep the log's clock. The
 * fixtures are labelled in a temp dir (never touched) and must give the verdict they give bare.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runMain } from '../helpers/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-srun-labels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { HOME: dir, XDG_STATE_HOME: dir };

const SGLANG_17 = 'fixtures/sglang/17-tp2-warmup-hang-watchdog-timeout-pyspy.log';

/** Each line behind a task label; `tasks` > 1 spreads the lines over tasks, padded as srun pads them. */
function labelled(fixture: string, tasks = 1): string {
  const lines = readFileSync(join(repoRoot, fixture), 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const width = String(tasks - 1).length;
  const text = lines.map((line, i) => `${String(i % tasks).padStart(width, ' ')}: ${line}`).join('\n') + '\n';
  const file = join(dir, `${tasks}-${fixture.replaceAll('/', '_')}`);
  writeFileSync(file, text);
  return file;
}

async function watchJson(file: string): Promise<{ code: number; verdict: Record<string, unknown> }> {
  const run = await runMain(['watch', '--no-follow', '--no-history', '--json', file], { env });
  const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code: run.code, verdict: lines.find((line) => line.type === 'verdict')! };
}

/** What a verdict says, without the fields that quote the line as the log shows it. */
function gist(verdict: Record<string, unknown>): Record<string, unknown> {
  const { verdict: word, stage, cause, rule, proc, silent_ms: silentMs, at_ms: atMs } = verdict;
  return { word, stage, cause, rule, proc, silentMs, atMs };
}

describe('25.13: srun --label output without --srun', () => {
  it.for([1, 2, 12])('25.13: sglang/17 behind srun labels of %i task(s) is STALLED in warmup after 5m of silence by its own clock', async (tasks) => {
    const { code, verdict } = await watchJson(labelled(SGLANG_17, tasks));
    expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'warmup', silent_ms: 300_000 });
    expect(code).toBe(2);
  });

  // Every 25th fixture of each family (sorted by name): a spread of verdicts, causes and prefixes.
  const sample = ['sglang', 'vllm'].flatMap((family) =>
    readdirSync(join(repoRoot, 'fixtures', family))
      .filter((name) => name.endsWith('.log'))
      .sort()
      .filter((_, i) => i % 25 === 0)
      .map((name) => `fixtures/${family}/${name}`),
  );

  it.for(sample)('25.13: %s gives the same verdict, stage, cause and time behind srun labels', async (fixture) => {
    const bare = await watchJson(join(repoRoot, fixture));
    const behind = await watchJson(labelled(fixture));
    expect(gist(behind.verdict)).toEqual(gist(bare.verdict));
    expect(behind.code).toBe(bare.code);
  });
});
