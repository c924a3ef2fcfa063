/**
 * Every error a user can cause ends in one clear message and a documented exit code, never a
 * stack trace; a bug ends in exit 70 with the version and a request to report it, whether main
 * catches it or it escapes main (thrown in a callback).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { version } from '../../src/cli/version.js';
import { assertBuilt, BIN, killAll, scratch, spawnCli, STACK_TRACE } from './cli-child.js';
import { runCli } from './in-process.js';

const { dir, env, cleanup } = scratch('errors');
beforeAll(assertBuilt);
afterEach(killAll);
afterAll(cleanup);

/** A stdin that delivers one line, then fails the way `error` says. */
function failingStdin(error: Error): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n");
      } else {
        this.destroy(error);
      }
    },
  });
}

describe('errors a user can cause: one message, a documented code, no trace', () => {
  writeFileSync(join(dir, 'exists.log'), 'x\n');
  mkdirSync(join(dir, 'a-dir'));

  it.for([
    { args: ['frob'], code: 64, message: 'spinup: unknown command "frob". Run \'spinup --help\' for the list.' },
    { args: [], code: 64, message: 'Usage: spinup <command> [options]' },
    { args: ['watch', '--frob', 'x.log'], code: 64, message: 'spinup watch: unknown option --frob.' },
    { args: ['watch', '--timeout', 'soon', 'x.log'], code: 64, message: 'spinup watch: --timeout wants a duration like 90s, 5m or 1h30m, not "soon"' },
    { args: ['watch'], code: 64, message: 'spinup watch: name a log FILE to watch, or - for stdin' },
    { args: ['watch', 'a.log', '--node', '1=b.log'], code: 64, message: 'spinup watch: give the nodes either as FILE... (ranks from the order or the logs) or as --node RANK=SOURCE, not both' },
    { args: ['watch', '--no-follow', 'exists.log', 'missing.log'], code: 66, message: 'spinup watch: missing.log: no such file' },
    { args: ['watch', '--from-end', '-'], code: 64, message: 'spinup watch: --from-end only applies when following a FILE' },
    { args: ['watch', '--no-follow', 'missing.log'], code: 66, message: 'spinup watch: missing.log: no such file' },
    { args: ['watch', '--no-follow', 'a-dir'], code: 66, message: 'spinup watch: a-dir: is a directory, not a log file' },
    { args: ['watch', '--no-follow', '/proc/self/mem'], code: 66, message: 'spinup watch: /proc/self/mem: cannot read: EIO: i/o error, read' },
    { args: ['watch', '--no-follow', '--pack', 'no-such-family', 'exists.log'], code: 64, message: 'spinup watch: unknown pack "no-such-family": the shipped packs are sglang, vllm (or name a pack FILE)' },
    { args: ['watch', '--no-follow', '--pack', 'no-such-pack.yaml', 'exists.log'], code: 78, message: 'error pack/unreadable Cannot read the pack: no such file.' },
    { args: ['explain', '/proc/self/mem'], code: 66, message: 'spinup explain: EIO: i/o error, read' },
    { args: ['run', '--log', 'exists.log', '--', 'true'], code: 64, message: 'already exists; spinup run never overwrites a log' },
    { args: ['run', '--'], code: 64, message: 'spinup run: name the server command after --' },
  ].map((c) => ({ ...c, name: `spinup ${c.args.join(' ')}`.trim() })))('$name → $code', async ({ args, code, message }) => {
    const w = spawnCli(args, { cwd: dir, env, stdin: 'ignore' });
    expect(await w.finished()).toEqual({ code, signal: null });
    expect(w.stderr).toContain(message);
    expect(w.stderr).not.toMatch(STACK_TRACE);
    expect(w.stderr).not.toContain('This is a bug');
  });

  it('a read error on stdin (EIO) is an input problem: exit 66, named', async () => {
    const eio = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
    const run = await runCli(['watch', '--no-history', '-'], { stdin: failingStdin(eio) });
    expect(run.code).toBe(66);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('spinup watch: stdin: cannot read: EIO: i/o error, read');
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });
});

describe('a bug: exit 70, the version, please report', () => {
  it('main catches an unexpected exception (a stdin stream that throws a plain Error on read)', async () => {
    const run = await runCli(['watch', '--no-history', '-'], { stdin: failingStdin(new TypeError('stdin broke in a way nobody planned for')) });
    expect(run.code).toBe(70);
    expect(run.stderr).toContain(`spinup ${version()}: internal error in 'watch'. This is a bug; please report it with the lines below.`);
    expect(run.stderr).toContain('TypeError: stdin broke in a way nobody planned for');
    expect(run.stderr).toMatch(STACK_TRACE); // the stack belongs in a bug report
  });

  it('an exception that escapes main (thrown in a timer callback) still ends in the same report', async () => {
    // Injected with node's own --import, so no production code changes for the test.
    const inject = 'data:text/javascript,setTimeout(() => { throw new Error("injected fault") }, 300)';
    const child = spawn(process.execPath, ['--import', inject, BIN, 'watch', '--no-history', '--timeout', '5s', join(dir, 'never.log')], { cwd: dir, env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 8_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect(code).toBe(70);
    expect(stderr).toContain(`spinup ${version()}: internal error in 'watch' (escaped). This is a bug; please report it with the lines below.`);
    expect(stderr).toContain('Error: injected fault');
  });
});
