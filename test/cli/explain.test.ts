/** `spinup explain` through main(): annotated lines, the stage timeline, the verdict and its reasons. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { repoRoot, runMain } from '../helpers/run-main.js';

const READY = 'fixtures/vllm/02-v085post1-smollm-single-gpu-ready.log';
const FAILED = 'fixtures/sglang/04-rocm-glm5-tp8-hip-oom-load.log';
const STALLED = 'fixtures/sglang/10-tp2-stuck-nccl-init-hang.log';

describe('spinup explain', () => {
  it.for([
    {
      name: 'a ready start',
      file: READY,
      code: 0,
      lines: [/^54 +INFO: +Application startup complete$/m, /^ +↳ ready +vllm\/startup-complete +ready \(held for a retraction\)$/m],
      timeline: [/^ +launch +2 +6s +18s$/m, /^ +http_server +27 +1m04s +2s \(until the ready verdict\)$/m],
      why: [/^ +decided by +line 54: INFO: +Application startup complete$/m, /^ +held +2s for a retraction/m],
    },
    {
      name: 'a failed start',
      file: FAILED,
      code: 1,
      lines: [/^444 +torch\.OutOfMemoryError: HIP out of memory/m, /^ +↳ failure +common\/gpu-out-of-memory +gpu_oom$/m, /^ +↳ failure +sglang\/scheduler-exception +crash, symptom$/m],
      timeline: [/^ +load_weights +371 +49s +0ms \(until the failed verdict\)$/m],
      why: [/^ +root cause +line 444: torch\.OutOfMemoryError/m, /^ +set aside +1 line\(s\), symptoms of the root cause:$/m, /^ +1\. gpu_oom common\/gpu-out-of-memory line 444 +tier 0: a fatal rule naming the cause$/m],
    },
    {
      name: 'a stalled start',
      file: STALLED,
      code: 2,
      lines: [/^13 +\[2025-02-18 09:34:04 TP0\] Init torch distributed begin\.$/m, /^ +↳ stage +sglang\/dist-init-begin +distributed_init$/m],
      timeline: [/^ +distributed_init +13 +9s +15m01s \(until the stalled verdict\)$/m],
      why: [/^ +decided by +time passing, not a line$/m, /^ +quiet since +line 19: NCCL version 2\.21\.5\+cuda12\.4$/m],
    },
  ])('explains $name', async ({ file, code, lines, timeline, why }) => {
    const run = await runMain(['explain', '--only-matches', file]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(code);
    const [log, rest] = run.stdout.split("\nStages, on the log's own clock:\n");
    const [stages, after] = rest!.split('\nVerdict:\n');
    for (const pattern of lines) expect(log).toMatch(pattern);
    for (const pattern of timeline) expect(stages).toMatch(pattern);
    for (const pattern of why) expect(after).toMatch(pattern);
    expect(after).toMatch(/\nExpectation \(.*\.expect\.yaml\):\n +matches\n$/);
  });

  it('--only-matches prints only lines a rule matched, each followed by its annotations', async () => {
    const run = await runMain(['explain', '--only-matches', READY]);
    const log = run.stdout.split("\nStages, on the log's own clock:\n")[0]!.split('\n').slice(2);
    log.forEach((line, index) => {
      if (/^\s*\d+ +/.test(line)) expect(log[index + 1]).toMatch(/^\s+↳ /);
    });
    const full = await runMain(['explain', READY]);
    expect(full.stdout.split('\n').length).toBeGreaterThan(run.stdout.split('\n').length);
    expect(full.stdout).toMatch(/^ 1 +\S/m);
  });

  it('names exceptions no rule knows (by the inference tables), and rules that matched only quoted source lines', async () => {
    const run = await runMain(['explain', '--only-matches', 'fixtures/vllm/04-v0-dev-docker-unknown-model-type-failed.log']);
    expect(run.stdout).toMatch(/↳ inference +common\/infer-package-model-config +unsupported_model, inferred from the package it was raised in/);
    expect(run.stdout).toMatch(/2\. unsupported_model common\/infer-package-model-config line 34 +tier 2: an exception whose own words name its cause/);
    const quoted = await runMain(['explain', '--only-matches', 'fixtures/sglang/20-tp8-l40s-nccl-unhandled-system-error.log']);
    expect(quoted.stdout).toMatch(/^52 + raise RuntimeError\(f"NCCL error: \{error_str\}"\)\n +↳ failure +common\/nccl-error +distributed_error +\(traceback source line: not read\)$/m);
  });

  it('--json: one object per matched line, per stage, the verdict with ranked candidates, the expectation', async () => {
    const run = await runMain(['explain', '--json', FAILED]);
    const objects = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(objects[0]).toMatchObject({ type: 'explain', family: 'sglang', detected: false, lines: 765 });
    const oom = objects.find((o) => o.type === 'line' && o.line === 444);
    expect(oom?.matches).toEqual([{ kind: 'failure', rule: 'common/gpu-out-of-memory', detail: 'gpu_oom', groups: {} }]);
    expect(objects.filter((o) => o.type === 'stage').map((o) => o.stage)).toEqual(['launch', 'distributed_init', 'load_weights']);
    const verdict = objects.find((o) => o.type === 'verdict');
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'gpu_oom', rule: 'common/gpu-out-of-memory', family: 'sglang' });
    expect(verdict?.candidates[0]).toMatchObject({ rank: 1, tier: 0, rule: 'common/gpu-out-of-memory', line: 444 });
    expect(objects.at(-1)).toEqual({ type: 'expectation', file: '04-rocm-glm5-tp8-hip-oom-load.expect.yaml', pass: true, mismatches: [] });
  });

  it('--then-idle replaces the fixture\'s quiet time (without it the hang log just ends)', async () => {
    const run = await runMain(['explain', '--then-idle', '1s', STALLED]);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/INCOMPLETE sglang/);
    expect(run.stdout).toMatch(/ +verdict: expected stalled, got incomplete\n$/);
  });

  it('--pack picks the pack over the fixture\'s family', async () => {
    const run = await runMain(['explain', '--pack', 'vllm', '--only-matches', STALLED]);
    expect(run.stdout.split('\n')[0]).toMatch(/: pack vllm \(--pack\), 20 lines, then 3h00m of quiet \(then_idle of 10-tp2-stuck-nccl-init-hang\.expect\.yaml\)$/);
  });

  it.for([
    { name: 'colour on a TTY', tty: true, env: {}, colored: true },
    { name: 'no colour with NO_COLOR', tty: true, env: { NO_COLOR: '1' }, colored: false },
    { name: 'no colour in a pipe', tty: false, env: {}, colored: false },
  ])('$name', async ({ tty, env, colored }) => {
    const run = await runMain(['explain', '--only-matches', READY], { tty, env });
    expect(run.stdout.includes('\u001b[')).toBe(colored);
  });

  it.for([
    { name: 'no file', args: ['explain'], code: 64, stderr: /name the log FILE/ },
    { name: 'two files', args: ['explain', READY, FAILED], code: 64, stderr: /one log at a time/ },
    { name: 'a missing file', args: ['explain', 'nope.log'], code: 66, stderr: /no such file: nope\.log/ },
    { name: 'a bad duration', args: ['explain', '--then-idle', 'soon', READY], code: 64, stderr: /--then-idle wants a duration/ },
  ])('refuses $name', async ({ args, code, stderr }) => {
    const run = await runMain(args);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(stderr);
  });
});

// Issue 25, item 18: explain opens a log as watch does (io/open-source.ts), so a rotated .gz explains like the log.
describe('spinup explain FILE.gz', () => {
  it('reads the decoded log: the same lines, stages and verdict as the plain file', async () => {
    const packed = join(mkdtempSync(join(tmpdir(), 'spinup-explain-gz-')), '04-rocm-glm5-tp8-hip-oom-load.log.gz');
    writeFileSync(packed, gzipSync(readFileSync(join(repoRoot, FAILED))));
    const objects = async (file: string): Promise<Record<string, any>[]> => (await runMain(['explain', '--json', '--pack', 'sglang', file])).stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>).filter((o) => o.type !== 'expectation');
    const [plain, gz] = [await objects(FAILED), await objects(packed)];
    expect(gz.find((o) => o.type === 'verdict')).toMatchObject({ verdict: 'failed', cause: 'gpu_oom', rule: 'common/gpu-out-of-memory' });
    const named = (o: Record<string, any>): Record<string, any> => (o.type === 'explain' ? { ...o, file: undefined } : o);
    expect(gz.map(named)).toEqual(plain.map(named));
  });
});

