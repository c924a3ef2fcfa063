/**
 * The streams around the CLI misbehave: the reader of stdout leaves (`| head -1`), stderr is
 * closed, stdout is a full disk, stdin ends in the middle of a line, a signal arrives during a
 * follow. Every case ends quietly, with one clear message and a documented exit code.
 *
 * Decided here: when the reader of stdout leaves (`| head -1`), spinup goes on to the verdict:
 * it stops writing to stdout, says so once on stderr, and exits with the verdict's code (exit 0
 * means READY and nothing else); `spinup run` also keeps supervising and logging the server.
 */
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURES, killAll, scratch, sleep, spawnCli, spawnShell, STACK_TRACE } from './cli-child.js';

const { dir, env, cleanup } = scratch('streams');
beforeAll(assertBuilt);
afterEach(killAll);
afterAll(cleanup);

const START = "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n";
const LOADING = '[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB\n';
const READY_LOG = join(FIXTURES, 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const OOM_LOG = join(FIXTURES, 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const OOM = '[2025-03-08 12:00:02] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 114.00 MiB.\n';
const READY_LINE = '[2025-03-08 12:00:03] The server is fired up and ready to roll!\n';

let cases = 0;
function logWith(text: string): string {
  const sub = join(dir, `case-${++cases}`);
  mkdirSync(sub);
  const path = join(sub, 'server.log');
  writeFileSync(path, text);
  return path;
}

describe('stdout, stderr and stdin misbehave', () => {
  it('13.1: watch --json FILE | head -1: the watch goes on to the verdict and exits with its code', async () => {
    const log = logWith(START);
    const w = spawnShell(`{ "$BIN" watch --no-history --json "${log}" 2>"${log}.err"; echo $? >"${log}.rc"; } | head -1; cat "${log}.err" >&2`, { cwd: dir, env });
    await w.until('the first event, read through head', () => w.stdout.includes('\n'), 20_000);
    // More events to write into the closed pipe, then the line that decides.
    for (let i = 0; i < 20; i++) {
      appendFileSync(log, LOADING);
      await sleep(50);
    }
    appendFileSync(log, OOM);
    expect(await w.finished(10_000), w.dump()).toEqual({ code: 0, signal: null });
    expect(readFileSync(`${log}.rc`, 'utf8').trim()).toBe('1');
    expect(w.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(w.stdout)).toMatchObject({ type: 'family' });
    expect(w.stderr.match(/stdout was closed/g), w.dump()).toHaveLength(1);
    expect(w.stderr).not.toMatch(STACK_TRACE);
  });

  it('13.1: watch --no-follow --json FAILED.log | head -3 exits 1, as text mode does', async () => {
    for (const json of [true, false]) {
      const flags = json ? '--json' : '';
      const w = spawnShell(`{ "$BIN" watch --no-history --no-follow ${flags} "${OOM_LOG}"; echo $? >&2; } | head -3 >/dev/null`, { cwd: dir, env });
      expect(await w.finished(10_000), w.dump()).toEqual({ code: 0, signal: null });
      expect(w.stderr.trim().split('\n').at(-1), w.dump()).toBe('1');
      expect(w.stderr).not.toMatch(STACK_TRACE);
    }
  });

  it('13.1: the reader of stdout leaves before the verdict: spinup says so once and exits with the verdict code', async () => {
    const log = logWith(START);
    const w = spawnCli(['watch', '--no-history', '--json', log], { cwd: dir, env });
    await w.until('a first event', () => w.stdout.includes('\n'));
    w.child.stdout!.destroy(); // close our end of the pipe, like `head -1` exiting
    appendFileSync(log, LOADING);
    await w.untilStderr('stdout was closed');
    appendFileSync(log, LOADING + READY_LINE);
    expect(await w.finished(), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stderr.match(/stdout was closed/g)).toHaveLength(1);
    expect(w.stderr).not.toMatch(STACK_TRACE);
  });

  it('stderr closed (`2>&1 | head -1`-like): the verdict still reaches stdout, with its exit code', async () => {
    const w = spawnCli(['watch', '--no-history', '--no-follow', READY_LOG], { cwd: dir, env });
    w.child.stderr!.destroy();
    expect(await w.finished(), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stdout).toMatch(/^READY sglang/m);
  });

  it('stdout is a full disk (/dev/full): one message on stderr, and the exit code still gives the verdict', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const w = spawnCli(['watch', '--no-history', '--no-follow', READY_LOG], { cwd: dir, env, stdout: full });
      expect(await w.finished()).toEqual({ code: 0, signal: null });
      expect(w.stderr.match(/cannot write to stdout \(ENOSPC\)/g)).toHaveLength(1);
      expect(w.stderr).not.toMatch(STACK_TRACE);
    } finally {
      closeSync(full);
    }
  });

  it('stdin closed in the middle of a line: INCOMPLETE (exit 3) with the last line seen', async () => {
    const w = spawnCli(['watch', '--no-history', '-'], { cwd: dir, env });
    w.child.stdin!.write(START + LOADING + '[2025-03-08 12:00:02] Load weight begin. half a li');
    await sleep(200);
    w.child.stdin!.end();
    expect(await w.finished()).toEqual({ code: 3, signal: null });
    expect(w.stdout).toContain('INCOMPLETE sglang  the input ended before any verdict (last stage: load_weights)');
    expect(w.stdout).toContain('last line  line 3: [2025-03-08 12:00:02] Load weight begin. half a li');
    expect(w.stderr).not.toMatch(STACK_TRACE);
  });

  it.for(['SIGINT', 'SIGTERM'] as const)('%s during a follow: exit 130, the last known state printed, no trace', async (signal) => {
    const log = logWith(START + LOADING);
    const w = spawnCli(['watch', '--no-history', log], { cwd: dir, env });
    await w.untilStderr('stage load_weights');
    w.kill(signal);
    expect(await w.finished()).toEqual({ code: 130, signal: null });
    expect(w.stderr).toMatch(/interrupted: load_weights [^\n]*\n\s+last line 2: \[2025-03-08 12:00:01\] Load weight begin/);
    expect(w.stderr).not.toMatch(STACK_TRACE);
  });

  it('SIGINT during a follow with --json: the state is a JSON message on stdout', async () => {
    const log = logWith(START + LOADING);
    const w = spawnCli(['watch', '--no-history', '--json', log], { cwd: dir, env });
    await w.until('the load_weights event', () => w.stdout.includes('"stage":"load_weights"'));
    w.kill('SIGINT');
    expect(await w.finished()).toEqual({ code: 130, signal: null });
    const last = JSON.parse(w.stdout.trim().split('\n').at(-1)!) as { type: string; text: string };
    expect(last.type).toBe('message');
    expect(last.text).toMatch(/^interrupted: load_weights/);
  });
});
