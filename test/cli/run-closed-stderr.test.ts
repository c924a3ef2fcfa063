import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spinup-process.js';
import { OOM_LOG, runScratch, SERVERS } from './run-harness.js';

// `run` prints its verdict on stderr (stdout carries the server's lines). A closed stderr must not
// lose it: the built bin under a real shell's `2>&-`.
const { tracker, dir } = runScratch();

function runUnderShell(redirect: string, log: string): Promise<{ code: number; stdout: string }> {
  const server = [process.execPath, `${SERVERS}/replay-log.mjs`, '--log', OOM_LOG, '--max-gap-ms', '2', '--then', 'exit1'];
  const words = [process.execPath, BIN, 'run', '--log', log, '--', ...server].map((word) => `'${word}'`).join(' ');
  return new Promise((resolve) => {
    const shell = execFile('sh', ['-c', `exec ${words} ${redirect}`], { env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 << 20 }, (error, stdout) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout });
    });
    tracker.track(shell.pid ?? 0);
  });
}

describe('spinup run with stderr closed', () => {
  it('2>&-: the verdict block is printed on stdout, after the server\'s lines; the exit code is the verdict\'s', async () => {
    const { code, stdout } = await runUnderShell('2>&-', join(dir, 'closed.log'));
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAILED sglang {2}gpu_oom: GPU out of memory$/m);
    expect(stdout).toMatch(/^ {2}log +.*closed\.log$/m);
    // Only the verdict: the other messages (stage lines, notes) are dropped with stderr.
    expect(stdout).not.toMatch(/^spinup: /m);
  }, 60_000);

  it('2>/dev/null, a choice to hear nothing: stdout stays the server\'s alone', async () => {
    const { code, stdout } = await runUnderShell('2>/dev/null', join(dir, 'devnull.log'));
    expect(code).toBe(1);
    expect(stdout).toContain('torch.OutOfMemoryError: CUDA out of memory');
    expect(stdout).not.toMatch(/^FAILED/m);
  }, 60_000);
});
