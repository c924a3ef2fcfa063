import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, PidTracker, procGroup } from '../io/pid-tracker.js';
import { OOM_LOG, SERVERS, scratchDir, sleep } from './run-harness.js';

// A few runs of the real bin: signals from outside, and the README example exactly as a person types it.
const BIN = 'dist/cli/bin.js';
const tracker = new PidTracker();
const dir = scratchDir();

beforeAll(() => {
  // `npm test` builds first; a direct vitest run may find dist older than the sources. The whole
  // build, not tsc alone: tsc's dist/cli/bin.js would replace the bundled one, whose code cache
  // test/cli/code-cache.test.ts checks (it then found none written).
  if (!existsSync(BIN) || newest('src') > statSync('dist/cli/commands/run.js', { throwIfNoEntry: false })?.mtimeMs!) {
    try {
      execFileSync('npm', ['run', 'build'], { stdio: 'ignore', timeout: 120_000 });
    } catch {
      // tsc emits even when another file has a type error; the tests below show whether it is usable.
    }
  }
}, 130_000);
afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function newest(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

interface BinRun {
  code: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  pid: number;
  waitFor: (needle: string) => Promise<void>;
}

function bin(args: string[]): BinRun {
  const child = spawn(process.execPath, [BIN, 'run', ...args], { cwd: process.cwd(), env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  tracker.track(child.pid ?? 0);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const match of err.matchAll(/started pid (\d+)/g)) tracker.track(Number(match[1]));
  });
  const code = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const waitFor = async (needle: string): Promise<void> => {
    for (let waited = 0; !err.includes(needle); waited += 20) {
      if (waited > 10_000) throw new Error(`no "${needle}" on stderr:\n${err}`);
      await sleep(20);
    }
  };
  return { code, stdout: () => out, stderr: () => err, pid: child.pid ?? 0, waitFor };
}

function serverPid(run: BinRun): number {
  return Number(/started pid (\d+)/.exec(run.stderr())?.[1]);
}

function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => procGroup(pid) === pgid && isAlive(pid));
}

describe('spinup run, the built bin', () => {
  it('the README example: a CUDA OOM start, FAILED gpu_oom, exit 1', async () => {
    const log = join(dir, 'readme.log');
    const run = bin(['--log', log, '--', 'node', `${SERVERS}/replay-log.mjs`, '--log', OOM_LOG, '--then', 'exit1']);
    expect(await run.code).toBe(1);
    expect(run.stderr()).toMatch(/^FAILED sglang {2}gpu_oom: GPU out of memory$/m);
    expect(run.stdout()).toContain('torch.OutOfMemoryError: CUDA out of memory');
    expect(existsSync(log)).toBe(true);
  });

  it('Ctrl-C (SIGINT to spinup): forwarded to the server group, exit 130', async () => {
    const run = bin(['--log', join(dir, 'sigint.log'), '--grace', '2s', '--', 'node', `${SERVERS}/ignore-sigterm.mjs`]);
    await run.waitFor('started pid');
    await sleep(200);
    process.kill(run.pid, 'SIGINT');
    expect(await run.code).toBe(130);
    expect(run.stderr()).toContain('interrupted: SIGINT to the server');
    expect(run.stderr()).toContain('the server exited on SIGINT');
    expect(isAlive(serverPid(run))).toBe(false);
  });

  it('a second Ctrl-C leaves at once, and still leaves nothing running', async () => {
    // The whole group ignores SIGINT and SIGTERM: only the SIGKILL spinup sends on its way out ends it.
    const stubborn = 'trap "" INT TERM; echo stubborn server up; while :; do sleep 0.1; done';
    const run = bin(['--log', join(dir, 'twice.log'), '--grace', '30s', '--', 'sh', '-c', stubborn]);
    await run.waitFor('started pid');
    await sleep(300);
    const pgid = serverPid(run);
    process.kill(run.pid, 'SIGINT');
    await run.waitFor('waiting up to 30s');
    const before = Date.now();
    process.kill(run.pid, 'SIGINT');
    expect(await run.code).toBe(130);
    expect(Date.now() - before).toBeLessThan(2_000);
    for (let i = 0; i < 100 && groupMembers(pgid).length > 0; i++) await sleep(20);
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('a second Ctrl-C also kills what left the process group (setsid) on the way out (issue 25 item 4)', async () => {
    // The background job calls setsid: its own session and group, out of reach of a signal to the server's group.
    const script = 'trap "" INT TERM; setsid "$0" -e "setTimeout(() => {}, 300000)" & echo "orphan pid $!"; while :; do sleep 0.1; done';
    const run = bin(['--log', join(dir, 'twice-setsid.log'), '--grace', '30s', '--', 'sh', '-c', script, process.execPath]);
    await run.waitFor('started pid');
    for (let i = 0; i < 250 && !/orphan pid \d+/.test(run.stdout()); i++) await sleep(20);
    const orphan = tracker.trackFromOutput(run.stdout())[0]!;
    expect(orphan).toBeGreaterThan(0);
    for (let i = 0; i < 100 && procGroup(orphan) !== orphan; i++) await sleep(20);
    expect(procGroup(orphan), 'the orphan leads a group of its own').toBe(orphan);
    process.kill(run.pid, 'SIGINT');
    await run.waitFor('waiting up to 30s');
    process.kill(run.pid, 'SIGINT');
    expect(await run.code).toBe(130);
    for (let i = 0; i < 100 && isAlive(orphan); i++) await sleep(20);
    expect(isAlive(orphan), 'the setsid process outlived spinup').toBe(false);
  });
});
