import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { apiGet } from '../../src/serve/api-client.js';
import { PidTracker } from '../io/pid-tracker.js';
import { runMain } from '../helpers/run-main.js';
import { spinup, until } from '../helpers/spinup-process.js';
import { repoRoot } from '../helpers/run-main.js';
import type { RunFile } from '../../src/serve/run-files.js';
import { runFiles, stateHomes } from '../helpers/state-homes.js';

// The status API on real processes: `spinup run --listen` over a fixture server replaying a real
// ready log, the state file it leaves, and status / attach / probe run as separate processes.
const READY_LOG = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const FAILED_LOG = join(repoRoot, 'fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const REPLAY = join(repoRoot, 'test/fixture-servers/replay-log.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'spinup-status-api-'));
const tracker = new PidTracker();

afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const stateHome = stateHomes(scratch);

describe('spinup run --listen over a replayed ready log', () => {
  it('/startupz flips 503 -> 200; the state file, status, probe and attach agree; Ctrl-C leaves an ended entry', async () => {
    const { env, runs } = stateHome();
    const log = join(scratch, 'ready-run.log');
    const run = spinup(['run', '--quiet', '--log', log, '--listen', '127.0.0.1:0', '--', process.execPath, REPLAY, '--log', READY_LOG, '--speed', '10', '--max-gap-ms', '400', '--then', 'hang'], env);
    tracker.track(run.pid);
    const url = (await run.waitFor(/status API on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const file = await until('the state file', () => runFiles(runs)[0]);
    expect(file).toMatchObject({ schema: 'spinup.run/v1', command: 'run', pid: run.pid, listen_url: url });
    expect(statSync(file.socket!).mode & 0o777).toBe(0o600);
    const attach = spinup(['attach', file.id], env);
    tracker.track(attach.pid);

    const seen: number[] = [];
    await until('/startupz 200', async () => {
      const answer = await apiGet({ url }, '/startupz', 5_000);
      if (seen.at(-1) !== answer.status) seen.push(answer.status);
      return answer.status === 200 ? answer : undefined;
    });
    expect(seen).toEqual([503, 200]);

    // attach replayed and followed the start, and ended with READY's code.
    expect(await attach.code).toBe(0);
    expect(attach.stdout()).toMatch(/^READY sglang {2}after /m);
    expect(attach.stderr()).toContain('stage load_weights');

    const probeUrl = spinup(['probe', url, '--ready'], env);
    expect(await probeUrl.code).toBe(0);
    expect(probeUrl.stdout()).toMatch(/^ready yes \(HTTP 200\): ready \/home\/user\/Qwen\/QwQ-32B after /);
    const probeId = spinup(['probe', file.id, '--startup'], env);
    expect(await probeId.code).toBe(0);
    const status = spinup(['status'], env);
    expect(await status.code).toBe(0);
    expect(status.stdout()).toMatch(new RegExp(`^${file.id}\\s+running\\s+run\\s+ready\\s+ready`, 'm'));

    const metrics = await apiGet({ url }, '/metrics', 5_000);
    expect(metrics.body).toContain('spinup_start_verdict{family="sglang",model="/home/user/Qwen/QwQ-32B",verdict="ready"} 1');
    const fileNow = await until('the ready status in the state file', () => runFiles(runs).find((r) => r.status.verdict === 'ready'));
    expect(fileNow.status).toMatchObject({ schema: 'spinup.status/v1', verdict: 'ready', log: log, server_pid: expect.any(Number) });

    run.child.kill('SIGINT');
    expect(await run.code).toBe(130);
    const ended = runFiles(runs)[0]!;
    expect(ended).toMatchObject({ exit_code: 130, ended_at: expect.any(String) });
    expect(existsSync(ended.socket!)).toBe(false);
    const after = spinup(['status', file.id], env);
    expect(await after.code).toBe(0);
    expect(after.stdout()).toMatch(/state\s+ended \(exit 130\)/);
    const probeGone = spinup(['probe', url, '--live'], env);
    expect(await probeGone.code).toBe(1);
    expect(probeGone.stdout()).toMatch(/^live no: cannot reach/);
    // The start was READY, then its spinup was interrupted: attach gives READY's code, not 130 (its own Ctrl-C).
    const attachEnded = spinup(['attach', file.id], env);
    expect(await attachEnded.code).toBe(0);
    expect(attachEnded.stdout()).toContain('is not running: it ended with exit 130 (its spinup was interrupted)');
  }, 90_000);
});

describe('spinup watch: attach from elsewhere, stale entries', () => {
  it('attach follows a failing start live and exits 1 with the same FAILED block as watch', async () => {
    const { env, runs } = stateHome();
    const log = join(scratch, 'failing.log');
    writeFileSync(log, '');
    const watch = spinup(['watch', log], env);
    tracker.track(watch.pid);
    const file = await until('the state file', () => runFiles(runs)[0]);
    const attach = spinup(['attach'], env);
    tracker.track(attach.pid);
    await attach.waitFor(/attached to /);
    appendFileSync(log, readFileSync(FAILED_LOG));
    expect(await watch.code).toBe(1);
    expect(await attach.code).toBe(1);
    const block = (text: string): string => text.slice(text.indexOf('FAILED'));
    expect(block(attach.stdout())).toBe(block(watch.stdout()));
    expect(runFiles(runs)[0]).toMatchObject({ id: file.id, exit_code: 1, status: { verdict: 'failed', cause: 'gpu_oom' } });
  }, 60_000);

  it('the watched start is interrupted before its verdict: attach exits 3 (no verdict), not 130 (which says attach was)', async () => {
    const { env, runs } = stateHome();
    const log = join(scratch, 'interrupted.log');
    writeFileSync(log, '');
    const watch = spinup(['watch', log], env);
    tracker.track(watch.pid);
    const file = await until('the state file', () => runFiles(runs)[0]);
    const attach = spinup(['attach'], env);
    tracker.track(attach.pid);
    await attach.waitFor(/attached to /);
    watch.child.kill('SIGINT');
    expect(await watch.code).toBe(130);
    expect(await attach.code).toBe(3);
    expect(attach.stdout()).toContain('it ended with exit 130 (its spinup was interrupted before a verdict)');
    // Attached afterwards, the same answer.
    const later = spinup(['attach', file.id], env);
    expect(await later.code).toBe(3);
  }, 60_000);

  it('a spinup killed without a word is listed stale; entries ended long ago are pruned', async () => {
    const { env, runs } = stateHome();
    const log = join(scratch, 'never.log');
    const watch = spinup(['watch', log], env);
    tracker.track(watch.pid);
    const file = await until('the state file', () => runFiles(runs)[0]);
    watch.child.kill('SIGKILL');
    await watch.code;
    const old: RunFile = { ...file, id: '20000101-000000-1', ended_at: '2000-01-01T00:00:00.000Z', updated_at: '2000-01-01T00:00:00.000Z', started_at: '2000-01-01T00:00:00.000Z' };
    writeFileSync(join(runs, `${old.id}.json`), JSON.stringify(old));
    const status = spinup(['status'], env);
    expect(await status.code).toBe(0);
    expect(status.stdout()).toMatch(new RegExp(`^${file.id}\\s+stale\\s+watch\\s+pending`, 'm'));
    expect(status.stdout()).not.toContain(old.id);
    expect(existsSync(join(runs, `${old.id}.json`))).toBe(false);
    const attach = spinup(['attach', file.id], env);
    expect(await attach.code).toBe(3);
    expect(attach.stdout()).toContain('is gone without a last word');
  }, 60_000);
});

describe('--listen errors', () => {
  let taken: Server | undefined;
  afterEach(() => taken?.close());

  it('a port in use is one message and exit 69, before anything starts', async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const log = join(scratch, 'not-created.log');
    const run = await runMain(['run', '--listen', `127.0.0.1:${port}`, '--log', log, '--', process.execPath, '-e', '0'], { env: {} });
    expect(run.code).toBe(69);
    expect(run.stderr).toBe(`spinup run: --listen 127.0.0.1:${port}: the port is already in use (another spinup or server?); pick another, or :0 for a free one\n`);
    expect(existsSync(log)).toBe(false);
    const watch = await runMain(['watch', '--no-follow', '--listen', String(port), READY_LOG], { env: {} });
    expect(watch.code).toBe(69);
  });

  it.for(['nope', '1.2.3.4:99999', '::1:80'])('a bad address %j is a usage error (64)', async (address) => {
    const watch = await runMain(['watch', '--no-follow', '--listen', address, READY_LOG], { env: {} });
    expect(watch.code).toBe(64);
    expect(watch.stderr).toMatch(/^spinup watch: --listen wants PORT, HOST:PORT/);
  });

  it('probe: a URL that is not http is a usage error; an unknown ID is 66', async () => {
    expect((await runMain(['probe', 'https://127.0.0.1:1'], { env: {} })).code).toBe(64);
    expect((await runMain(['probe', 'nope-id'], { env: { XDG_STATE_HOME: join(scratch, 'empty') } })).code).toBe(66);
  });
});
