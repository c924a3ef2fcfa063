/**
 * When a watch's state file and unix socket appear (cli/live-status.ts): a start that is still
 * going a moment after it began has both, and `status` and `attach` find it by them; a short
 * `--no-follow` start, over before then, never opens a socket but leaves its ended state file,
 * so `status` lists it all the same (which of the two a run is depends on the machine's speed:
 * the tests hold for both). A `--no-follow` watch that lasts opens them a second in, not 200 ms.
 * A state dir that cannot be written is said once either way.
 * Real processes of the built bin.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { STATE_AFTER_MS } from '../../src/cli/live-status.js';
import { PidTracker } from '../io/pid-tracker.js';
import { repoRoot } from '../helpers/run-main.js';
import { spinup, until } from '../helpers/spinup-process.js';
import { runFiles, stateHomes } from '../helpers/state-homes.js';

const READY_LOG = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const scratch = mkdtempSync(join(tmpdir(), 'spinup-state-file-'));
const tracker = new PidTracker();

afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const stateHome = stateHomes(scratch);

describe('the state file of a watch', () => {
  it('a short --no-follow watch: an ended state file with its verdict and exit code, listed by status, no socket left', async () => {
    const { env, runs } = stateHome();
    const watch = spinup(['watch', '--no-follow', '--quiet', READY_LOG], env);
    expect(await watch.code).toBe(0);
    const [file, ...others] = runFiles(runs);
    expect(others).toEqual([]);
    expect(file).toMatchObject({ schema: 'spinup.run/v1', command: 'watch', pid: watch.pid, log: READY_LOG, exit_code: 0, ended_at: expect.any(String), status: { verdict: 'ready' } });
    // Whether it was over before its socket was due depends on the machine's speed; either way none is left.
    if (file!.socket !== undefined) expect(existsSync(file!.socket)).toBe(false);
    expect(readdirSync(runs).filter((name) => !name.endsWith('.json'))).toEqual([]);
    const status = spinup(['status'], env);
    expect(await status.code).toBe(0);
    expect(status.stdout()).toMatch(new RegExp(`^${file!.id}\\s+ended\\s+watch\\s+ready`, 'm'));
  });

  it('a watch still going: its socket, then the state file naming it; status and attach find it; the socket goes at the end', async () => {
    const { env, runs } = stateHome();
    const log = join(scratch, 'growing.log');
    const lines = readFileSync(READY_LOG, 'utf8').split('\n');
    const ready = lines.findIndex((line) => line.includes('fired up'));
    writeFileSync(log, `${lines.slice(0, 20).join('\n')}\n`);
    const watch = spinup(['watch', '--quiet', log], env);
    tracker.track(watch.pid);
    const file = await until('the state file', () => runFiles(runs)[0]);
    expect(file).toMatchObject({ command: 'watch', pid: watch.pid });
    expect(file.ended_at).toBeUndefined();
    expect(statSync(file.socket!).mode & 0o777).toBe(0o600);
    const status = spinup(['status'], env);
    expect(await status.code).toBe(0);
    expect(status.stdout()).toMatch(new RegExp(`^${file.id}\\s+running\\s+watch`, 'm'));
    const attach = spinup(['attach', file.id], env);
    tracker.track(attach.pid);
    // Attached (it replays what happened so far) before the start goes on to its verdict.
    await attach.waitFor(/stage \w+/);
    appendFileSync(log, `${lines.slice(20, ready + 1).join('\n')}\n`);
    expect(await watch.code).toBe(0);
    expect(await attach.code).toBe(0);
    expect(attach.stdout()).toMatch(/^READY sglang/m);
    const ended = runFiles(runs)[0]!;
    expect(ended).toMatchObject({ id: file.id, exit_code: 0, status: { verdict: 'ready' } });
    expect(existsSync(file.socket!)).toBe(false);
  });

  it('a --no-follow watch of a file that takes long to read: its socket and state file come after a second, not 200 ms; gone at the end', async () => {
    const { env, runs } = stateHome();
    // A FIFO: the watch reads it as a finished file, and it lasts until the test writes the log.
    const fifo = join(scratch, 'slow-to-read.log');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const spawned = Date.now();
    const watch = spinup(['watch', '--no-follow', '--quiet', fifo], env);
    tracker.track(watch.pid);
    // Resolves once the watch opened the FIFO: past LiveStatus.start, its timer running.
    const writer = await open(fifo, 'w');
    const entries = () => (existsSync(runs) ? readdirSync(runs) : []);
    await until('the socket', () => entries().length > 0);
    // A live log's come STATE_AFTER_MS.live in; a finished file's no earlier than this after the spawn.
    expect(Date.now() - spawned).toBeGreaterThanOrEqual(STATE_AFTER_MS.finishedFile);
    const file = await until('the state file', () => runFiles(runs)[0]);
    expect(file).toMatchObject({ command: 'watch', pid: watch.pid, log: fifo });
    expect(file.ended_at).toBeUndefined();
    expect(existsSync(file.socket!)).toBe(true);
    await writer.write(readFileSync(READY_LOG));
    await writer.close();
    expect(await watch.code).toBe(0);
    expect(runFiles(runs)[0]).toMatchObject({ id: file.id, exit_code: 0, status: { verdict: 'ready' } });
    expect(existsSync(file.socket!)).toBe(false);
  });

  it.for([
    ['a short --no-follow watch', ['watch', '--no-follow', '--quiet', READY_LOG]],
    ['a watch that waits a moment for its input', ['watch', '--quiet', '--timeout', '1s', join(scratch, 'never-written.log')]],
  ] as const)('%s with a state dir it cannot write: said once on stderr, the exit code as without it', async ([, args]) => {
    const blocked = join(mkdtempSync(join(scratch, 'blocked-')), 'state');
    writeFileSync(blocked, 'a file where the state dir would be');
    const watch = spinup([...args], { XDG_STATE_HOME: blocked });
    tracker.track(watch.pid);
    const code = await watch.code;
    const free = spinup([...args], stateHome().env);
    tracker.track(free.pid);
    expect(code).toBe(await free.code);
    expect(watch.stderr().match(/spinup: no state file or socket for attach: /g)).toHaveLength(1);
    expect(free.stderr()).not.toContain('no state file');
  });
});
