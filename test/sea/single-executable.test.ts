/**
 * Issue 27 item 1: `npm run sea` (run by `npm test` before vitest) builds dist/spinup-linux-x64,
 * spinup as one file. Here a copy of it runs from a temp dir, away from the repository, with no
 * node on PATH, through watch (a file and stdin), run --listen with probe, replay of the fixtures
 * (on worker threads), report, and a pack of one's own (read in a worker, then from the pack cache).
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiGet } from '../../src/serve/api-client.js';
import { nodeOnPath, pathWithoutNode } from '../helpers/no-node-path.js';
import { repoRoot } from '../helpers/run-main.js';
import { until } from '../helpers/spinup-process.js';
import { PidTracker } from '../io/pid-tracker.js';

const BUILT = join(repoRoot, 'dist', `spinup-${process.platform}-${process.arch}`);
const READY_LOG = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const FAILED_LOG = join(repoRoot, 'fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

const scratch = mkdtempSync(join(tmpdir(), 'spinup-sea-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const tracker = new PidTracker();
const exe = join(scratch, 'spinup');
if (existsSync(BUILT)) copyFileSync(BUILT, exe);
const env = { PATH: pathWithoutNode(scratch, [scratch]), HOME: join(scratch, 'home'), XDG_STATE_HOME: join(scratch, 'state'), XDG_CACHE_HOME: join(scratch, 'cache'), NO_COLOR: '1', TZ: 'UTC' };

/** The copy, run by the shell (as a user would type it) in the scratch dir. */
function sh(command: string, input?: string): { code: number | null; out: string; err: string } {
  const run = spawnSync('/bin/sh', ['-c', command], { cwd: scratch, env, input, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('27.1: the single executable, with no node on PATH', () => {
  it('27.1: npm run sea built it, and this PATH has no node', () => {
    expect(existsSync(BUILT), `${BUILT} is missing: run npm run sea (npm test runs it)`).toBe(true);
    expect(nodeOnPath(env.PATH)).toBe('');
  });

  it('27.1: --version on the first start unpacks its tree into the cache dir, then reads the package version from it', () => {
    const first = sh('spinup --version');
    expect(first).toMatchObject({ code: 0, out: `spinup ${version}\n` });
    const trees = readdirSync(join(scratch, 'cache', 'spinup'));
    expect(trees).toHaveLength(1);
    expect(existsSync(join(scratch, 'cache', 'spinup', trees[0]!, '.complete'))).toBe(true);
    expect(sh('spinup --version').out).toBe(`spinup ${version}\n`);
  });

  it('27.1: watch a file: READY exits 0, FAILED exits 1 with its cause', () => {
    const ready = sh(`spinup watch --no-follow ${READY_LOG}`);
    expect(ready.code).toBe(0);
    expect(ready.out).toMatch(/^READY sglang {2}after 29s/m);
    const failed = sh(`spinup watch --no-follow ${FAILED_LOG}`);
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/^FAILED sglang .*gpu_oom/m);
  });

  it('27.1: watch follows a file that appears and grows', async () => {
    const log = join(scratch, 'growing.log');
    const watch = spawn(exe, ['watch', '--quiet', log], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
    tracker.track(watch.pid!);
    let out = '';
    watch.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = new Promise<number | null>((resolve) => watch.once('close', resolve));
    const lines = readFileSync(READY_LOG, 'utf8').split('\n');
    await new Promise((r) => setTimeout(r, 300));
    for (let at = 0; at < lines.length; at += 20) {
      appendFileSync(log, lines.slice(at, at + 20).map((line) => `${line}\n`).join(''));
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await code).toBe(0);
    expect(out).toMatch(/^READY sglang/m);
  });

  it('27.1: watch stdin', () => {
    const ready = sh('spinup watch -', readFileSync(READY_LOG, 'utf8'));
    expect(ready.code).toBe(0);
    expect(ready.out).toMatch(/^READY sglang/m);
  });

  it('27.1: replay of every fixture on two worker threads passes', () => {
    const replay = sh(`spinup replay --jobs 3 ${join(repoRoot, 'fixtures')}`);
    expect(replay.out).toMatch(/^(\d+) passed, 0 failed$/m);
    expect(Number(/^(\d+) passed/m.exec(replay.out)![1])).toBeGreaterThan(200);
    expect(replay.code).toBe(0);
  });

  it('27.1: report writes the page', () => {
    const report = sh(`spinup report -o page.html ${FAILED_LOG}`);
    expect(report.code, report.err).toBe(0);
    const page = readFileSync(join(scratch, 'page.html'), 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain('<svg');
    expect(page).toContain('gpu_oom');
  });

  it('27.1: a pack of its own is read (in a worker) and cached, and the second watch uses the cache', () => {
    const pack = join(repoRoot, 'fixtures/packs/valid/minimal.yaml');
    writeFileSync(join(scratch, 'minimal.log'), 'Starting server\nServer is ready\n');
    const first = sh(`spinup watch --no-follow --pack ${pack} minimal.log`);
    expect(first.code, first.err).toBe(0);
    expect(readdirSync(join(scratch, 'state', 'spinup', 'packs')).filter((n) => n.endsWith('.json'))).toHaveLength(1);
    expect(sh(`spinup watch --no-follow --pack ${pack} minimal.log`).code).toBe(0);
  });

  it('27.1: run --listen supervises a shell server; probe --ready says yes; Ctrl-C exits 130', async () => {
    // The stand-in server is a shell script: nothing in this test may need node.
    const server = join(scratch, 'server.sh');
    writeFileSync(server, `while IFS= read -r line; do printf '%s\\n' "$line"; sleep 0.01; done < '${READY_LOG}'\nexec sleep 300\n`);
    const log = openSync(join(scratch, 'run.err'), 'w');
    const run = spawn(exe, ['run', '--quiet', '--listen', '127.0.0.1:0', '--', 'sh', server], { cwd: scratch, env, stdio: ['ignore', 'ignore', log] });
    tracker.track(run.pid!);
    const code = new Promise<number | null>((resolve) => run.once('close', resolve));
    const url = await until('the status API address', () => /status API on (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(join(scratch, 'run.err'), 'utf8'))?.[1], 60_000);
    await until('/startupz 200', async () => ((await apiGet({ url }, '/startupz', 5_000)).status === 200 ? true : undefined), 60_000);
    const probe = sh(`spinup probe ${url} --ready`);
    expect(probe.code).toBe(0);
    expect(probe.out).toMatch(/^ready yes \(HTTP 200\)/);
    expect((await apiGet({ url }, '/metrics', 5_000)).body).toContain('verdict="ready"} 1');
    run.kill('SIGINT');
    expect(await code).toBe(130);
    expect(await tracker.sweep(), 'processes that outlived the run').toEqual([]);
  });
});

describe('27.1: run --keep-on-fail from the single executable', () => {
  it('the server kept after FAILED lives on, and its later lines reach the log (the drainer runs without node too)', async () => {
    // A shell server: the CUDA OOM start, then a tick every 100 ms, as a server kept for inspection prints on.
    const server = join(scratch, 'failing-server.sh');
    writeFileSync(server, `cat '${FAILED_LOG}'\ni=0\nwhile [ $i -lt 3000 ]; do i=$((i+1)); echo "tick $i"; sleep 0.1; done\n`);
    const log = join(scratch, 'kept.log');
    const run = spawnSync(exe, ['run', '--json', '--keep-on-fail', '--log', log, '--', 'sh', server], { cwd: scratch, env, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(1);
    const left = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).find((event) => event.type === 'left_running');
    expect(left, run.stdout).toBeDefined();
    const pgid = left!.pgid as number;
    tracker.track(pgid);
    const ticksAt = (): number => (readFileSync(log, 'utf8').match(/^tick \d+$/gm) ?? []).length;
    const before = ticksAt();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Alive: its group still answers signal 0, and it went on writing into the log after spinup left.
    expect(() => process.kill(-pgid, 0)).not.toThrow();
    expect(ticksAt()).toBeGreaterThan(before + 5);
    process.kill(-pgid, 'SIGKILL');
  });
});

describe('27.1: where the single executable unpacks its files', () => {
  /** Runs the copy with these variables only (and the no-node PATH), resolving its exit code and output. */
  function start(vars: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
    return new Promise((resolve) => {
      const child = spawn(exe, ['--version'], { cwd: scratch, env: { PATH: env.PATH, ...vars } });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.once('close', (code) => resolve({ code, out, err }));
    });
  }

  it('27.1: four first starts at once into one empty cache all run, and leave one tree', async () => {
    const cache = join(scratch, 'racing-cache');
    const starts = await Promise.all([1, 2, 3, 4].map(() => start({ XDG_CACHE_HOME: cache, HOME: join(scratch, 'home') })));
    for (const run of starts) expect(run).toEqual({ code: 0, out: `spinup ${version}\n`, err: '' });
    expect(readdirSync(join(cache, 'spinup'))).toEqual([expect.stringMatching(/^sea-[0-9a-f]{16}$/)]);
  });

  it('27.1: a cache dir it cannot write falls through to the next one; none at all is one message and exit 69', async () => {
    // A path under a regular file can never be made a directory, even by root.
    const file = join(scratch, 'a-file');
    writeFileSync(file, '');
    const fallback = await start({ SPINUP_SEA_CACHE: join(file, 'x'), XDG_CACHE_HOME: join(file, 'y'), HOME: join(scratch, 'fallback-home') });
    expect(fallback).toMatchObject({ code: 0, out: `spinup ${version}\n` });
    expect(readdirSync(join(scratch, 'fallback-home', '.cache', 'spinup'))).toHaveLength(1);
    const none = await start({ SPINUP_SEA_CACHE: join(file, 'x'), XDG_CACHE_HOME: join(file, 'y'), HOME: file, TMPDIR: file });
    expect(none.code).toBe(69);
    expect(none.out).toBe('');
    expect(none.err).toMatch(/^spinup: could not unpack the executable's files into a cache directory \(.*\); set SPINUP_SEA_CACHE to a writable directory\n$/);
  });
});
