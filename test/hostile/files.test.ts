/**
 * `spinup watch FILE` (follow mode, the built CLI as a child) while the file is mistreated:
 * deleted for good, rotated 100 times in a second, truncated, replaced by a directory, made
 * unreadable, a FIFO, a symlink swapped under it. No crash; a notice says what happened; a verdict
 * written afterwards is still found; a file that never comes back ends at --timeout (exit 2).
 */
import { appendFileSync, closeSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, scratch, sleep, spawnCli, spawnShell, STACK_TRACE, type CliChild } from './cli-child.js';

const { dir, env, cleanup } = scratch('files');
beforeAll(assertBuilt);
afterEach(killAll);
afterAll(cleanup);

const START = "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n";
const LOADING = '[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB\n';
const READY = '[2025-03-08 12:00:09] The server is fired up and ready to roll!\n';

let cases = 0;
function casePath(name: string): string {
  const sub = join(dir, `case-${++cases}`);
  mkdirSync(sub);
  return join(sub, name);
}

function watch(path: string, timeout = '10s'): CliChild {
  return spawnCli(['watch', '--no-history', '--timeout', timeout, path], { cwd: dir, env });
}

function noCrash(w: CliChild): void {
  expect(w.stderr).not.toMatch(STACK_TRACE);
  expect(w.stderr).not.toContain('internal error');
}

describe('the followed file, mistreated', () => {
  it('deleted and never re-created: reported, and watch keeps waiting until --timeout (exit 2)', async () => {
    const path = casePath('server.log');
    writeFileSync(path, START);
    const started = Date.now();
    const w = watch(path, '2s');
    await w.untilStderr('stage launch');
    rmSync(path);
    await w.untilStderr(`${path} was deleted; waiting for it to come back`);
    expect(w.exit).toBeUndefined(); // still waiting
    expect(await w.finished(6_000)).toEqual({ code: 2, signal: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(w.stderr).toContain('timed out after 2s with no verdict');
    noCrash(w);
  });

  it('rotated 100 times in a second while a writer appends: no crash, the final verdict is found', async () => {
    const path = casePath('server.log');
    const w = watch(path);
    await w.untilStderr('waiting for');
    let fd = openSync(path, 'a');
    writeSync(fd, START);
    await w.untilStderr('stage launch');
    const began = Date.now();
    for (let i = 0; i < 100; i++) {
      writeSync(fd, `[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB (rotation ${i})\n`);
      closeSync(fd);
      renameSync(path, `${path}.${i}`);
      fd = openSync(path, 'a');
      writeSync(fd, `[2025-03-08 12:00:02] Capture cuda graph begin. avail mem=10.00 GB (file ${i + 1})\n`);
      await sleep(5);
    }
    writeSync(fd, READY);
    closeSync(fd);
    expect(Date.now() - began).toBeLessThan(2_500); // "in a second", give or take a busy CI machine
    expect(await w.finished(8_000), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stdout).toContain('READY');
    expect(w.stderr).toContain('was rotated; following the new file');
    noCrash(w);
  });

  it('truncated to zero and rewritten: read again from the start, the new run decides', async () => {
    const path = casePath('server.log');
    writeFileSync(path, START + LOADING);
    const w = watch(path);
    await w.untilStderr('stage load_weights');
    truncateSync(path, 0);
    await sleep(300);
    appendFileSync(path, START.replace('12:00:00', '12:10:00') + READY.replace('12:00:09', '12:10:09'));
    expect(await w.finished(), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stderr).toContain('was truncated; reading it from the start');
    expect(w.stdout).toMatch(/READY[^\n]*\n.*line 4: \[2025-03-08 12:10:09\]/);
    noCrash(w);
  });

  it('replaced by a directory: reported and waited out; a file put back is followed to its verdict', async () => {
    const path = casePath('server.log');
    writeFileSync(path, START);
    const w = watch(path);
    await w.untilStderr('stage launch');
    rmSync(path);
    mkdirSync(path);
    await w.untilStderr(`${path} is not a regular file (directory); waiting`);
    rmdirSync(path);
    writeFileSync(path, LOADING + READY);
    expect(await w.finished(), w.dump()).toEqual({ code: 0, signal: null });
    noCrash(w);
  });

  // These tests run as root, for whom chmod 000 denies nothing; a symlink loop is a path that exists
  // but can never be opened (ELOOP), which is the same situation for the follower.
  it('unreadable (a symlink loop): reported and retried; readable again, it is followed to its verdict', async () => {
    const path = casePath('server.log');
    symlinkSync(`${path}.other`, path);
    symlinkSync(path, `${path}.other`);
    const w = watch(path);
    await w.untilStderr(/cannot read .*server\.log: ELOOP.*; retrying/);
    rmSync(path);
    writeFileSync(path, START + READY);
    expect(await w.finished(), w.dump()).toEqual({ code: 0, signal: null });
    noCrash(w);
  });

  it('unreadable with --no-follow: one clear message, exit 66', async () => {
    const path = casePath('server.log');
    symlinkSync(`${path}.other`, path);
    symlinkSync(path, `${path}.other`);
    const w = spawnCli(['watch', '--no-history', '--no-follow', path], { cwd: dir, env });
    expect(await w.finished()).toEqual({ code: 66, signal: null });
    expect(w.stderr.trim()).toBe(`spinup watch: ${path}: too many levels of symbolic links (a symlink loop?)`);
  });

  it('a FIFO: read as a stream, across writers that come and go', async () => {
    const path = casePath('server.fifo');
    execFileSync('mkfifo', [path]);
    const w = watch(path);
    await sleep(200);
    for (const text of [START, LOADING, READY]) {
      // Each write is a writer of its own that opens, writes and closes the FIFO.
      const fd = openSync(path, 'w');
      writeSync(fd, text);
      closeSync(fd);
      await sleep(100);
    }
    expect(await w.finished(), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stdout).toContain('READY');
    noCrash(w);
  });

  it('a path through a symlink that is swapped to another file: the new file is followed', async () => {
    const path = casePath('current.log');
    const first = `${path}.1`;
    const second = `${path}.2`;
    writeFileSync(first, START + LOADING);
    writeFileSync(second, '');
    symlinkSync(first, path);
    const w = watch(path);
    await w.untilStderr('stage load_weights');
    symlinkSync(second, `${path}.new`);
    renameSync(`${path}.new`, path); // an atomic swap, as deploy tools do it
    await w.untilStderr('was rotated; following the new file');
    appendFileSync(first, '[2025-03-08 12:00:05] torch.OutOfMemoryError: CUDA out of memory.\n'); // the old target no longer counts
    await sleep(300);
    appendFileSync(second, READY);
    expect(await w.finished(), w.dump()).toEqual({ code: 0, signal: null });
    noCrash(w);
  });

  it('13.4: --timeout is wall time with --no-follow too: an endless pipe (`yes | spinup watch --no-follow -`) ends at it, exit 2', async () => {
    const w = spawnShell(`yes '[2025-03-08 12:29:13 TP0] hello' | "$BIN" watch --no-history --no-follow --timeout 2s -`, { cwd: dir, env });
    expect(await w.finished(30_000), w.dump()).toEqual({ code: 2, signal: null });
    expect(w.stderr).toMatch(/^timed out after 2s with no verdict/m);
    noCrash(w);
  });

  it('13.4: --timeout with --no-follow on a pipe that stays silent: exit 2', async () => {
    // stdin is a pipe the test holds open and never writes to.
    const w = spawnCli(['watch', '--no-history', '--no-follow', '--timeout', '1s', '-'], { cwd: dir, env });
    expect(await w.finished(30_000), w.dump()).toEqual({ code: 2, signal: null });
    expect(w.stderr).toContain('timed out after 1s with no verdict: no log line seen yet');
  });

  it('13.4: --no-follow on a FIFO whose writer never stops: ends at --timeout, exit 2', async () => {
    const path = casePath('server.fifo');
    execFileSync('mkfifo', [path]);
    const w = spawnShell(`yes '${LOADING.trim()}' >"${path}" & exec "$BIN" watch --no-history --no-follow --timeout 2s "${path}"`, { cwd: dir, env });
    expect(await w.finished(30_000), w.dump()).toEqual({ code: 2, signal: null });
    expect(w.stderr).toMatch(/^timed out after 2s with no verdict/m);
  });

  it('13.4: a device (/dev/zero) with --no-follow is not a log file: one message, exit 66, as the README says', async () => {
    const w = spawnCli(['watch', '--no-history', '--no-follow', '--timeout', '2s', '/dev/zero'], { cwd: dir, env });
    expect(await w.finished(30_000), w.dump()).toEqual({ code: 66, signal: null });
    expect(w.stderr.trim()).toBe('spinup watch: /dev/zero: is a character device, not a log file');
  });

  it('13.4: /dev/zero followed: reported as not a regular file, and --timeout ends the wait (exit 2)', async () => {
    const w = watch('/dev/zero', '2s');
    expect(await w.finished(30_000), w.dump()).toEqual({ code: 2, signal: null });
    expect(w.stderr).toContain('/dev/zero is not a regular file');
    noCrash(w);
  });
});
