/**
 * Words and exit codes a script relies on (issue 25, item 11), each checked on the built bin as
 * a real process: `replay --json` prints only JSON lines, so `| jq` reads it all; `status`,
 * `attach` and `probe` say an unknown option in the words the other commands use (exit 64);
 * `probe --help` lists the exit 66 it gives for an unknown start; and a command run from a
 * working directory that was deleted under the shell ends in one message and exit 66, not in
 * an internal error with a stack trace.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run-main.js';
import { BIN, spinup } from '../helpers/spinup-process.js';
import { stateHomes } from '../helpers/state-homes.js';

const scratch = mkdtempSync(join(tmpdir(), 'spinup-json-usage-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const stateHome = stateHomes(scratch);

const STACK_TRACE = /^\s+at .+[(:]\d+/m;

describe('replay --json prints only JSON lines', () => {
  it('two cases, then the summary as an object: every line parses', async () => {
    const { env } = stateHome();
    const replay = spinup(['replay', '--json', 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log', 'fixtures/vllm/02-v085post1-smollm-single-gpu-ready.log'], env);
    expect(await replay.code).toBe(0);
    const lines = replay.stdout().trimEnd().split('\n');
    const objects = lines.map((line) => {
      expect(() => JSON.parse(line), `not JSON: ${line}`).not.toThrow();
      return JSON.parse(line) as { type: string };
    });
    expect(objects.map((o) => o.type)).toEqual(['case', 'case', 'summary']);
    expect(objects.at(-1)).toEqual({ type: 'summary', passed: 2, failed: 0, total: 2 });
  });
});

describe('status, attach and probe: an unknown option is a usage error in our words', () => {
  it.for(['status', 'attach', 'probe'])('%s --bogus: one message, the help pointer, exit 64', async (command) => {
    const { env } = stateHome();
    const run = spinup([command, '--bogus'], env);
    expect(await run.code).toBe(64);
    expect(run.stderr()).toBe(`spinup ${command}: unknown option --bogus.\nRun 'spinup ${command} --help' for usage.\n`);
    expect(run.stdout()).toBe('');
  });

  it.for(['status', 'attach'])('%s --jsno: did you mean --json?', async (command) => {
    const { env } = stateHome();
    const run = spinup([command, '--jsno'], env);
    expect(await run.code).toBe(64);
    expect(run.stderr()).toContain(`spinup ${command}: unknown option --jsno. Did you mean --json?`);
  });

  it('probe --startp: did you mean --startup?', async () => {
    const { env } = stateHome();
    const run = spinup(['probe', '--startp', 'abc'], env);
    expect(await run.code).toBe(64);
    expect(run.stderr()).toContain('spinup probe: unknown option --startp. Did you mean --startup?');
  });
});

describe('probe documents the exit code it gives for an unknown start', () => {
  it('an unknown id exits 66, and --help lists 66', async () => {
    const { env } = stateHome();
    const probe = spinup(['probe', 'no-such-start'], env);
    expect(await probe.code).toBe(66);
    expect(probe.stderr()).toContain('no start "no-such-start" on this host');
    const help = spinup(['probe', '--help'], env);
    expect(await help.code).toBe(0);
    expect(help.stdout()).toMatch(/^Exit: .*· 66 no such start/m);
  });
});

describe('a working directory deleted under the shell', () => {
  it.for([
    ['status'],
    ['watch', '--no-follow', join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log')],
    ['replay', 'fixtures'],
  ])('spinup %s ...: one message naming the cause, exit 66, no stack trace', async (args) => {
    const { env } = stateHome();
    const gone = join(scratch, `gone-${args[0]}`);
    // The shell enters the directory, removes it, then starts spinup there (as after `rm -rf` of a build dir).
    const script = `mkdir "${gone}" && cd "${gone}" && rmdir "${gone}" && exec "${process.execPath}" "${BIN}" "$@"`;
    const result = await promisify(execFile)('/bin/sh', ['-c', script, 'sh', ...args], { env: { ...process.env, ...env, NO_COLOR: '1' } }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    expect(result.code, result.stderr).toBe(66);
    expect(result.stderr).toBe('spinup: the current directory no longer exists (deleted, or its mount went away), so paths cannot be resolved; cd to a directory that exists and run spinup again\n');
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(result.stdout).toBe('');
  });
});
