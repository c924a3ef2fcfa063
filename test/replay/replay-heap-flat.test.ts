/**
 * A replay's memory does not grow with its corpus: what each case leaves behind once it is
 * reported is garbage. Measured in a child process (the built CLI's `replay --jobs 1`), as the
 * heap in use after a full GC when 1,500, 4,500 and 7,500 cases were reported: an archive of tens
 * of thousands of startup logs must replay in the memory of a few thousand.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run-main.js';

const PROBE = join(repoRoot, 'test/helpers/replay-heap-probe.mjs');
/** Short fixtures of both families, so thousands replay in seconds. */
const FIXTURES = [
  'vllm/56-v0-old-api-server-argument-pp-invalid-int-failed',
  'vllm/55-v0-cpu-docker-api-server-unrecognized-arguments-failed',
  'vllm/307-v1-kserve-predictor-crashloop-llama31-gated-403-forbidden-config-failed',
  'sglang/335-2026-06-apple-mlx-qwen3-0.6b-mac-ready',
];
const CASES = 7_500;

/** `copy-N/FAMILY/NAME.log` beside its expectation, as an archive of many starts is laid out. */
function archive(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spinup-heap-flat-'));
  for (let i = 0; i < CASES; i++) {
    const fixture = FIXTURES[i % FIXTURES.length]!;
    const [family, name] = fixture.split('/') as [string, string];
    const copy = join(dir, `copy-${Math.floor(i / FIXTURES.length)}`, family);
    mkdirSync(copy, { recursive: true });
    copyFileSync(join(repoRoot, 'fixtures', `${fixture}.log`), join(copy, `${name}.log`));
    copyFileSync(join(repoRoot, 'fixtures', `${fixture}.expect.yaml`), join(copy, `${name}.expect.yaml`));
  }
  return dir;
}

describe('replay of an archive', () => {
  const dir = archive();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps nothing per case: the heap after 7,500 cases is the heap after 4,500', async () => {
    // Without V8's optimizing compilers: the code they write for functions as they grow hot is a
    // one-time cost this would mistake for growth (up to ~300 KB between two points, either way).
    const flags = ['--expose-gc', '--max-semi-space-size=2', '--no-opt', '--no-sparkplug', '--no-maglev'];
    // Two windows of four points each, 1,500 cases apart at least. The heap at one point may hold
    // ~250 KB more than at the next (whatever is live just then, such as a batch of rows being
    // written, which time cuts); what a case keeps is in every later point, so the least of each
    // window is compared.
    const early = ['3000', '3500', '4000', '4500'];
    const late = ['6000', '6500', '7000', String(CASES)];
    const { stdout } = await promisify(execFile)(process.execPath, [...flags, PROBE, dir, ...early, ...late], { cwd: repoRoot, maxBuffer: 1 << 20 });
    const { code, rows, heap } = JSON.parse(stdout.trim().split('\n').pop()!) as { code: number; rows: number; heap: number[] };
    expect({ code, rows }).toEqual({ code: 0, rows: CASES });
    expect(heap).toHaveLength(early.length + late.length);
    const grown = Math.min(...heap.slice(early.length)) - Math.min(...heap.slice(0, early.length));
    // After the first cases grew the heap's tables to their size, each case holding on to even 60
    // bytes would be 90 KB over those 1,500. (A case's expect path, a rope flattened by its first
    // read in the middle of the replay, held ~90 bytes each, and more in the pages it pinned.)
    expect(grown).toBeLessThan(1_500 * 60);
  }, 120_000);
});
