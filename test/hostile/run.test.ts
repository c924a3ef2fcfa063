/**
 * `spinup run` (the built CLI) given servers that misbehave: a command that does not exist or
 * cannot run, one that exits before printing anything, one that ignores SIGTERM, one that forks
 * children and exits. Each ends with one clear message and its exit code, and no process the
 * test started (directly or through spinup) outlives it.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, PidTracker } from '../io/pid-tracker.js';
import { assertBuilt, FIXTURES, killAll, scratch, SERVERS, sleep, spawnCli, spawnShell, STACK_TRACE, type CliChild } from './cli-child.js';

const { dir, env, cleanup } = scratch('run');
const tracker = new PidTracker();
beforeAll(assertBuilt);
afterEach(async () => {
  await killAll();
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(cleanup);

let logs = 0;
function run(args: string[], command: string[]): { w: CliChild; log: string } {
  const log = join(dir, `run-${++logs}.log`);
  const w = spawnCli(['run', '--log', log, ...args, '--', ...command], { cwd: dir, env, stdin: 'ignore' });
  tracker.track(w.pid);
  return { w, log };
}

/** Every pid spinup or a fixture server printed: the server, its children. */
function trackPrinted(w: CliChild): number[] {
  const pids = [...`${w.stdout}\n${w.stderr}`.matchAll(/started pid (\d+)|\b(?:child|orphan) pid (\d+)/g)].map((m) => Number(m[1] ?? m[2]));
  tracker.track(...pids);
  return pids;
}

describe('spinup run with a server that misbehaves', () => {
  it.for([
    { name: 'does not exist', command: [join(dir, 'no-such-server')], reason: 'command not found' },
    { name: 'is not executable', command: [join(dir, 'not-executable.sh')], reason: 'permission denied or not an executable file' },
    { name: 'is a directory', command: [dir], reason: 'permission denied or not an executable file' },
  ])('a command that $name: exit 66 with the reason, no log file, nothing left running', async ({ command, reason }) => {
    writeFileSync(join(dir, 'not-executable.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(dir, 'not-executable.sh'), 0o644);
    const before = readdirSync(dir).filter((f) => f.startsWith('run-'));
    const { w, log } = run([], command);
    expect(await w.finished()).toEqual({ code: 66, signal: null });
    expect(w.stderr.trim()).toBe(`spinup run: cannot start "${command[0]}": ${reason}`);
    expect(existsSync(log)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('run-'))).toEqual(before);
  });

  it.for([
    { name: 'exits 0', code: 0, cause: 'unknown', says: 'exited (code 0) before it was ready' },
    { name: 'exits 3', code: 3, cause: 'crash', says: 'the server exited with code 3 with no error in its log' },
  ])('a server that $name before printing anything: FAILED (exit 1), the exit named', async ({ code, cause, says }) => {
    const { w, log } = run([], [process.execPath, '-e', `process.exit(${code})`]);
    expect(await w.finished()).toEqual({ code: 1, signal: null });
    trackPrinted(w);
    expect(w.stdout + w.stderr).toContain(`FAILED`);
    expect(w.stdout + w.stderr).toContain(`${cause}: ${says}`);
    expect(w.stderr).not.toMatch(STACK_TRACE);
    expect(existsSync(log)).toBe(true); // an empty log is still the record of the attempt
  });

  it('a server that ignores SIGTERM: STALLED at --timeout, then SIGKILL after the grace period', async () => {
    const started = Date.now();
    const { w } = run(['--timeout', '1s', '--grace', '1s'], [process.execPath, join(SERVERS, 'ignore-sigterm.mjs')]);
    await w.untilStderr('started pid');
    const [server] = trackPrinted(w);
    expect(await w.finished(8_000), w.dump()).toEqual({ code: 2, signal: null });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(w.stdout).toContain('ignoring SIGTERM'); // it did get the SIGTERM, and shrugged
    expect(w.stderr).toContain('SIGTERM was not enough within 1s: killed with SIGKILL');
    expect(isAlive(server!)).toBe(false);
  });

  it('a server that closes its output and runs on: --timeout still decides (STALLED), and it is stopped', async () => {
    // The end of the output is not the end of the run: the loop's deciders go on ticking.
    const { w } = run(['--timeout', '1s', '--grace', '1s'], ['sh', '-c', 'echo "server starting"; exec >/dev/null 2>&1; exec sleep 30']);
    await w.untilStderr('started pid');
    const [server] = trackPrinted(w);
    expect(await w.finished(10_000), w.dump()).toEqual({ code: 2, signal: null });
    expect(w.stderr).toContain('no verdict within --timeout 1s');
    expect(w.stderr).toContain('the server stopped on SIGTERM');
    expect(isAlive(server!)).toBe(false);
  });

  it('a server that dies mid-line while an orphan holds its pipes: the half line is read (its cause), the orphan stopped', async () => {
    // The pipes never close while the orphan lives: the partial line is released on the death, not at their end.
    const fatal = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB';
    const { w, log } = run(['--pack', 'sglang', '--grace', '1s'], ['sh', '-c', `sleep 30 & echo "orphan pid $!"; printf '${fatal}'; exit 1`]);
    expect(await w.finished(10_000), w.dump()).toEqual({ code: 1, signal: null });
    const pids = trackPrinted(w);
    expect(w.stderr).toContain('FAILED sglang  gpu_oom');
    expect(w.stderr).toContain(`root cause line 2: ${fatal}`);
    const orphan = /orphan pid (\d+)/.exec(w.stdout)?.[1];
    expect(readFileSync(log, 'utf8')).toBe(`orphan pid ${orphan}\n${fatal}\n`);
    for (let waited = 0; pids.some(isAlive) && waited < 2_000; waited += 50) await sleep(50);
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it('a launcher that forks two workers and exits: FAILED, and the workers are stopped too', async () => {
    const { w } = run(['--grace', '2s'], [process.execPath, join(SERVERS, 'fork-and-exit.mjs')]);
    expect(await w.finished(8_000), w.dump()).toEqual({ code: 1, signal: null });
    const pids = trackPrinted(w);
    const workers = [...w.stdout.matchAll(/child pid (\d+)/g)].map((m) => Number(m[1]));
    expect(workers).toHaveLength(2);
    expect(pids).toEqual(expect.arrayContaining(workers));
    // Dead (a zombie counts: this container's PID 1 may never reap the orphans it inherits).
    for (let waited = 0; workers.some(isAlive) && waited < 2_000; waited += 50) await sleep(50);
    expect(workers.filter(isAlive)).toEqual([]);
    expect(w.stderr).toContain('stopping the server');
  });

  it('13.1: run | head -1 keeps supervising and exits with the verdict code', async () => {
    const log = join(dir, `run-${++logs}.log`);
    const fixture = join(FIXTURES, 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
    const server = `node "${join(SERVERS, 'replay-log.mjs')}" --log "${fixture}" --speed 20 --max-gap-ms 100 --then exit1`;
    const w = spawnShell(`{ "$BIN" run --log "${log}" -- ${server}; echo $? >"${log}.rc"; } | head -1`, { cwd: dir, env });
    expect(await w.finished(20_000), w.dump()).toEqual({ code: 0, signal: null });
    trackPrinted(w);
    expect(w.stdout.trim().split('\n')).toHaveLength(1); // head -1 had its line
    expect(readFileSync(`${log}.rc`, 'utf8').trim(), w.dump()).toBe('1');
    // The server was not stopped mid-start: the log holds every line it printed (its stdout and
    // stderr interleave, so their order may differ from the fixture's).
    const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').sort();
    expect(lines(log)).toEqual(lines(fixture));
    expect(w.stderr).toContain('FAILED sglang  gpu_oom');
    expect(w.stderr.match(/stdout was closed/g), w.dump()).toHaveLength(1);
    expect(w.stderr).not.toMatch(STACK_TRACE);
  });

  it('13.11: run has one clock: the verdict\'s time and the process line\'s are both time since the launch', async () => {
    // A replayed capture runs its log's clock fast (speed 100): 2 minutes of log in about a second.
    const fixture = join(FIXTURES, 'sglang/10-tp2-stuck-nccl-init-hang.log');
    const { w } = run([], [process.execPath, join(SERVERS, 'replay-log.mjs'), '--log', fixture, '--speed', '100', '--max-gap-ms', '100', '--then', 'exit1']);
    expect(await w.finished(20_000), w.dump()).toEqual({ code: 1, signal: null });
    trackPrinted(w);
    const seconds = (text: string): number => {
      const [, m, s, ms] = /^(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(text)!;
      return Number(m ?? 0) * 60 + Number(s ?? 0) + Number(ms ?? 0) / 1000;
    };
    const verdictAt = /stage +distributed_init, (\S+) after launch/.exec(w.stderr)?.[1];
    const exitAt = /process +pid \d+ exited with code 1, (\S+) after launch/.exec(w.stderr)?.[1];
    expect(verdictAt, w.dump()).toBeDefined();
    expect(exitAt, w.dump()).toBeDefined();
    expect(seconds(verdictAt!)).toBe(seconds(exitAt!));
    // The stage lines are on the same clock: none later than the verdict.
    const stageTimes = [...w.stderr.matchAll(/^\[ *(\S+)\] stage /gm)].map((m) => seconds(m[1]!));
    expect(stageTimes.length).toBeGreaterThan(0);
    for (const at of stageTimes) expect(at).toBeLessThanOrEqual(seconds(exitAt!));
  });

  it('13.12 (issue 12): run records its start in the history like watch, and takes --history, --no-history, --no-learn', async () => {
    const history = join(dir, 'run-history.jsonl');
    // One pipe (2>&1): the fixture server writes its error lines to stderr, and the order in which two
    // pipes are read is up to the scheduler; this test is about the history record, not that race.
    const replay = [process.execPath, join(SERVERS, 'replay-log.mjs'), '--log', join(FIXTURES, 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log'), '--then', 'exit1'];
    const server = ['sh', '-c', 'exec "$@" 2>&1', 'sh', ...replay];
    const first = run(['--history', history], server);
    expect(await first.w.finished(20_000), first.w.dump()).toEqual({ code: 1, signal: null });
    trackPrinted(first.w);
    const records = (): { source: string; verdict: string; cause?: string; log?: string }[] =>
      readFileSync(history, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(records()).toEqual([expect.objectContaining({ source: 'run', verdict: 'failed', cause: 'gpu_oom', log: first.log })]);
    for (const flags of [['--no-history'], ['--history', history, '--no-learn']]) {
      const again = run(flags, server);
      expect(await again.w.finished(20_000), again.w.dump()).toEqual({ code: 1, signal: null });
      trackPrinted(again.w);
    }
    expect(records().map((r) => r.source)).toEqual(['run', 'run']); // --no-history left none
    const shown = spawnCli(['history', '--history', history], { cwd: dir, env });
    expect(await shown.finished()).toEqual({ code: 0, signal: null });
    expect(shown.stdout).toMatch(/2 starts in .*run-history\.jsonl/);
    expect(shown.stdout).toMatch(/failed load_weights +gpu_oom/);
  });
});
