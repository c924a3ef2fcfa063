/**
 * Issue 13.10: when the cause is not in the input (a `tail` of the log), the wrapper that says
 * "see root cause above" is shown as what it is, not as the root cause.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runMain } from '../helpers/run-main.js';

const VLLM_10 = join(repoRoot, 'fixtures/vllm/10-v0251-dgx-spark-dflash-int4-max-seq-len-kv-too-small-failed.log');
const dir = mkdtempSync(join(tmpdir(), 'spinup-tail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `tail -n N` gives. */
function tail(file: string, n: number): string {
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const out = join(dir, `tail-${n}.log`);
  writeFileSync(out, `${lines.slice(-n).join('\n')}\n`);
  return out;
}

describe('13.10: the cause was printed above the part given', () => {
  it('13.10: tail -n 60 of vllm/10 presents "See root cause above" as a wrapper, not as the root cause', async () => {
    const file = tail(VLLM_10, 60);
    const run = await runMain(['watch', '--no-follow', '--no-history', file]);
    expect(run.code).toBe(1);
    // The block the README shows.
    expect(run.stdout).toBe(
      [
        'FAILED vllm  crash: the vLLM engine failed to start',
        '  stage      none, 0ms after start',
        '  rule       vllm/engine-core-failed',
        '  process    APIServer',
        "  root cause not in this input: the log says it was printed earlier (above the part given, or in another process's log)",
        '  wrapper    line 60: (APIServer pid=6787) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
        '  hint       The root cause is the first traceback above (in a Worker or EngineCore block).',
        '',
      ].join('\n'),
    );
    const json = await runMain(['watch', '--no-follow', '--no-history', '--json', file]);
    const verdict = JSON.parse(json.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(verdict).toMatchObject({ verdict: 'failed', cause_elsewhere: true });
    expect(verdict.reason).toBe('the root cause is not in the input: only a wrapper saying the start failed');
  });

  it('13.10: the whole log still names the ValueError as the root cause', async () => {
    const run = await runMain(['watch', '--no-follow', '--no-history', '--json', VLLM_10]);
    const verdict = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'kv_cache_memory' });
    expect(verdict.cause_elsewhere).toBeUndefined();
  });
});
