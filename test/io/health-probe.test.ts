import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type Child } from '../../src/io/child-process.js';
import { HealthPoller, probeHealth, type ProbeResult } from '../../src/io/health-probe.js';
import { OutputRecorder } from './output-recorder.js';
import { PidTracker } from './pid-tracker.js';

const CRASH_LOG = 'fixtures/sglang/22-tp4-l4-qwq-ready-then-scheduler-crash-health-200.log';

const tracker = new PidTracker();
let server: Child;
let output: OutputRecorder;
let base: string;

beforeAll(async () => {
  server = await startChild({
    command: process.execPath,
    args: ['test/fixture-servers/health-server.mjs', '--port', '0', '--log', CRASH_LOG, '--max-gap-ms', '2'],
  });
  tracker.track(server.pid);
  output = new OutputRecorder(server);
  const banner = await output.waitFor('listening on');
  base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
});

afterAll(async () => {
  await server.stop({ graceMs: 2_000 });
  expect(await tracker.sweep(), 'processes that outlived the tests').toEqual([]);
});

function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const local = createServer(handler);
  return new Promise((resolve) =>
    local.listen(0, '127.0.0.1', () => {
      resolve({ server: local, url: `http://127.0.0.1:${(local.address() as AddressInfo).port}` });
    }),
  );
}

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe('probeHealth', () => {
  it.for([
    { path: '/health', status: 200, ok: true },
    { path: '/health_generate', status: 200, ok: true },
    { path: '/v1/models', status: 200, ok: true },
    { path: '/metrics', status: 404, ok: false },
  ])('GET $path on the fixture server: $status', async ({ path, status, ok }) => {
    const before = Date.now();
    const result = await probeHealth(`${base}${path}`, { timeoutMs: 2_000 });
    expect(result).toEqual({ ok, status, at: expect.any(Number) });
    expect(result.at).toBeGreaterThanOrEqual(before);
  });

  it('still answers 200 after the log showed the scheduler crash: the probe alone proves nothing', async () => {
    await output.waitFor('Traceback (most recent call last)', 5_000);
    expect((await probeHealth(`${base}/health`, { timeoutMs: 2_000 })).ok).toBe(true);
  });

  it('reports a connection error on a closed port', async () => {
    const { server: local, url } = await listen(() => {});
    await new Promise((resolve) => local.close(resolve));
    const result = await probeHealth(`${url}/health`, { timeoutMs: 2_000 });
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('ECONNREFUSED') });
    expect(result.status).toBeUndefined();
  });

  it.for([
    { name: 'a server that never answers times out', abort: false, error: 'timeout after 200 ms' },
    { name: 'an abort from the caller stops the request', abort: true, error: 'aborted' },
  ])('$name', async ({ abort, error }) => {
    const { server: local, url } = await listen(() => {});
    closers.push(() => local.closeAllConnections(), () => local.close());
    const caller = new AbortController();
    if (abort) setTimeout(() => caller.abort(), 50);
    const before = Date.now();
    const result = await probeHealth(url, { timeoutMs: 200, signal: caller.signal });
    expect(result).toMatchObject({ ok: false, error });
    expect(Date.now() - before).toBeLessThan(1_000);
  });

  it('does not count a redirect as healthy', async () => {
    const { server: local, url } = await listen((_, response) => response.writeHead(302, { location: '/' }).end());
    closers.push(() => local.close());
    expect(await probeHealth(url, { timeoutMs: 2_000 })).toMatchObject({ ok: false, status: 302 });
  });
});

describe('HealthPoller', () => {
  it('polls at the interval, keeps the latest result, and stops', async () => {
    const results: ProbeResult[] = [];
    const poller = new HealthPoller({ url: `${base}/health`, intervalMs: 30, onResult: (r) => results.push(r) });
    expect(poller.latest()).toBeUndefined();
    poller.start();
    poller.start();
    const deadline = Date.now() + 3_000;
    while (results.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    poller.stop();
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(poller.latest()).toEqual(results.at(-1));
    expect(poller.latest()?.ok).toBe(true);
    const count = results.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(results.length).toBe(count);
  });

  it('remembers a failure', async () => {
    const { server: local, url } = await listen(() => {});
    await new Promise((resolve) => local.close(resolve));
    const poller = new HealthPoller({ url, intervalMs: 1_000 });
    poller.start();
    const deadline = Date.now() + 3_000;
    while (poller.latest() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    poller.stop();
    expect(poller.latest()).toMatchObject({ ok: false, error: expect.stringContaining('ECONNREFUSED') });
  });
});
