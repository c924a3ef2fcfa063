/**
 * `watch --listen` as a Kubernetes sidecar (issue 25, item 14): after READY it keeps following the
 * log and answering its probes until the server's end (SIGTERM, SIGINT, or a piped input's end),
 * instead of exiting at the verdict, which took /readyz from 503 straight to a refused
 * connection. HEAD is answered like GET without a body (probers and `wget --spider` use it).
 * Real processes of the built bin, a growing file, loopback HTTP.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { apiGet } from '../../src/serve/api-client.js';
import { PidTracker } from '../io/pid-tracker.js';
import { repoRoot } from '../helpers/run-main.js';
import { BIN, spinup, until, type SpinupProcess } from '../helpers/spinup-process.js';
import { stateHomes } from '../helpers/state-homes.js';

// A real vLLM start that was READY, then died on its first request 70 s later.
const LOG = readFileSync(join(repoRoot, 'fixtures/vllm/05-v064post1-gtx1080-ready-then-engine-died.log'), 'utf8').split('\n');
const READY_UP_TO = 52; // past `Uvicorn running on` and a few metrics lines
const scratch = mkdtempSync(join(tmpdir(), 'spinup-serve-on-'));
const stateHome = stateHomes(scratch);
const tracker = new PidTracker();
let files = 0;
afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `watch --listen` on a new log that gets its first line at once and the rest of the start later (live, not an earlier run). */
async function sidecar(extra: string[] = []): Promise<{ watch: SpinupProcess; url: string; log: string }> {
  const log = join(scratch, `server-${++files}.log`);
  writeFileSync(log, `${LOG[0]}\n`);
  const watch = spinup(['watch', '--no-history', '--listen', '127.0.0.1:0', ...extra, log], stateHome().env);
  tracker.track(watch.pid);
  const url = (await watch.waitFor(/status API on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  await until('the launch line read', async () => ((JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as { stage: string }).stage === 'launch' ? true : undefined));
  return { watch, url, log };
}

const readyz = async (url: string): Promise<number> => (await apiGet({ url }, '/readyz', 5_000)).status;

function head(url: string, path: string): Promise<{ status: number; type: string | undefined; length: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method: 'HEAD', timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], length: res.headers['content-length'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('watch --listen serves its probes after READY, until the server\'s end', () => {
  it('/readyz answers 200 after READY and goes on; a crash after READY turns it 503 with the watch still up; SIGTERM then exits 1', async () => {
    const { watch, url, log } = await sidecar();
    expect(await readyz(url)).toBe(503);
    appendFileSync(log, `${LOG.slice(1, READY_UP_TO).join('\n')}\n`);
    await watch.waitFor(/^READY vllm/m);
    expect(watch.stderr()).toMatch(/READY: still following the log and serving the status API until SIGTERM or SIGINT/);
    // Used to be a refused connection: watch had exited at the verdict.
    await until('/readyz 200', async () => ((await readyz(url)) === 200 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await readyz(url)).toBe(200);
    expect(watch.child.exitCode).toBeNull();

    appendFileSync(log, LOG.slice(READY_UP_TO).join('\n'));
    await until('/readyz 503 after the engine died', async () => ((await readyz(url)) === 503 ? true : undefined));
    const status = JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as { after_ready_failure: { cause: string; rule: string } | null };
    expect(status.after_ready_failure).toMatchObject({ cause: 'crash', rule: 'vllm/v0-engine-dead' });
    expect(watch.child.exitCode).toBeNull();
    watch.child.kill('SIGTERM');
    expect(await watch.code).toBe(1);
  }, 60_000);

  it('READY and nothing since: SIGTERM (a pod stopping its sidecar) ends the watch with exit 0', async () => {
    const { watch, url, log } = await sidecar(['--quiet']);
    appendFileSync(log, `${LOG.slice(1, READY_UP_TO).join('\n')}\n`);
    await until('/readyz 200', async () => ((await readyz(url)) === 200 ? true : undefined));
    // The verdict block is printed at READY, not at the exit far off.
    await watch.waitFor(/^READY vllm/m);
    watch.child.kill('SIGTERM');
    expect(await watch.code).toBe(0);
    expect(watch.stdout().match(/^READY vllm/gm)).toHaveLength(1);
  }, 60_000);

  it('HEAD is answered like GET without a body, on every GET route', async () => {
    const { watch, url, log } = await sidecar(['--quiet']);
    const before = await head(url, '/readyz');
    expect(before).toMatchObject({ status: 503, body: '' });
    expect(before.type).toMatch(/^application\/json/);
    appendFileSync(log, `${LOG.slice(1, READY_UP_TO).join('\n')}\n`);
    await until('HEAD /readyz 200', async () => ((await head(url, '/readyz')).status === 200 ? true : undefined));
    for (const path of ['/', '/livez', '/startupz', '/readyz', '/v1/status', '/metrics', '/v1/events']) {
      const answer = await head(url, path);
      expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 200, body: '' });
    }
    const get = await apiGet({ url }, '/v1/status', 5_000);
    // The headers a GET would have: the length of the body it would send.
    expect(Number((await head(url, '/v1/status')).length)).toBeGreaterThan(100);
    expect(get.status).toBe(200);
    expect((await head(url, '/v1/events')).type).toMatch(/^text\/event-stream/);
    expect((await head(url, '/nope')).status).toBe(404);
    watch.child.kill('SIGTERM');
    expect(await watch.code).toBe(0);
  }, 60_000);

  it('a piped input (server 2>&1 | spinup watch --listen -): READY is served on until the pipe closes, the server\'s end', async () => {
    const watch = spawn(process.execPath, [BIN, 'watch', '--no-history', '--quiet', '--listen', '127.0.0.1:0', '-'], { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1', ...stateHome().env }, stdio: ['pipe', 'pipe', 'pipe'] });
    tracker.track(watch.pid ?? 0);
    let err = '';
    watch.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = new Promise<number | null>((resolve) => watch.once('close', resolve));
    const url = await until('the status API', () => /status API on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)?.[1]);
    watch.stdin.write(`${LOG.slice(0, READY_UP_TO).join('\n')}\n`);
    await until('/readyz 200', async () => ((await readyz(url)) === 200 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await readyz(url)).toBe(200);
    expect(watch.exitCode).toBeNull();
    watch.stdin.end();
    expect(await code).toBe(0);
  }, 60_000);
});

