/**
 * The package's bin (dist/cli/bin.cjs, a CommonJS script) and tsc's entry (dist/cli/bin.js, an
 * ES module, which tests and people run by path) are one loader of one bundled CLI: the same
 * output and exit code, through the shebang or through `node`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run-main.js';

const scratch = mkdtempSync(join(tmpdir(), 'spinup-bin-entry-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const packageBin = join(repoRoot, (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: { spinup: string } }).bin.spinup);
const esmEntry = join(repoRoot, 'dist/cli/bin.js');
const failedLog = join(repoRoot, 'fixtures/vllm/10-v0251-dgx-spark-dflash-int4-max-seq-len-kv-too-small-failed.log');

let runs = 0;
function run(command: string, args: string[]): [number | null, string, string] {
  const result = spawnSync(command, args, { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: join(scratch, `state-${++runs}`) }, encoding: 'utf8', timeout: 60_000 });
  return [result.status, result.stdout, result.stderr];
}

describe('the bin', () => {
  it('is the CommonJS loader beside tsc\'s entry', () => {
    expect(packageBin).toBe(join(repoRoot, 'dist/cli/bin.cjs'));
    expect(readFileSync(packageBin, 'utf8')).toMatch(/^#!\/usr\/bin\/env -S (?:\S+ )*?node /);
  });

  it('has a shebang line that kernels before 5.1 read whole (they read 127 bytes of it: RHEL 8\'s 4.18)', () => {
    for (const file of [packageBin, esmEntry]) {
      const first = readFileSync(file, 'utf8').split('\n', 1)[0]!;
      expect(first.startsWith('#!')).toBe(true);
      expect(Buffer.byteLength(first), file).toBeLessThanOrEqual(127);
    }
  });

  it.for([
    ['watch of a failed start', ['watch', '--no-follow', failedLog]],
    ['--version', ['--version']],
    ['an unknown command', ['no-such-command']],
  ] as const)('%s: the same through either entry, by its shebang or by node', ([, args]) => {
    const byShebang = run(packageBin, [...args]);
    expect(run(process.execPath, [packageBin, ...args])).toEqual(byShebang);
    expect(run(process.execPath, [esmEntry, ...args])).toEqual(byShebang);
    expect(run(esmEntry, [...args])).toEqual(byShebang);
  });

  it('the watch says FAILED and exits 1', () => {
    const [code, stdout] = run(packageBin, ['watch', '--no-follow', failedLog]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAILED vllm/m);
  });
});
