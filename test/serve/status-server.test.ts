import { connect } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { eventJson } from '../../src/cli/format/verdict-json.js';
import type { SessionEvent } from '../../src/core/session.js';
import { apiGet, readEvents, type StreamedEvent } from '../../src/serve/api-client.js';
import { StatusServer } from '../../src/serve/status-server.js';
import { fixtureLines, statusModel } from '../helpers/status-model.js';

const READY_LOG = 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log';
const open: StatusServer[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(model: ReturnType<typeof statusModel>['model'], options: { sseBufferBytes?: number; keepaliveMs?: number } = {}): Promise<{ server: StatusServer; url: string }> {
  const server = new StatusServer({ model, ...options });
  open.push(server);
  const url = await server.listenTcp({ host: '127.0.0.1', port: 0, text: ':0' });
  return { server, url };
}

function raw(url: string, method: string, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('status server routes', () => {
  it('answers the probes: /startupz and /readyz 503 while starting, 200 once READY; /livez always 200', async () => {
    const { model, feed } = statusModel();
    const { url } = await serve(model);
    const lines = fixtureLines(READY_LOG);
    feed(lines.slice(0, 40));
    const starting = await apiGet({ url }, '/startupz', 5_000);
    expect(starting.status).toBe(503);
    expect(JSON.parse(starting.body)).toMatchObject({ schema: 'spinup.status/v1', verdict: 'pending', family: 'sglang' });
    expect((await apiGet({ url }, '/readyz', 5_000)).status).toBe(503);
    expect((await apiGet({ url }, '/livez', 5_000)).status).toBe(200);
    feed(lines.slice(40));
    const started = await apiGet({ url }, '/startupz', 5_000);
    expect(started.status).toBe(200);
    expect(JSON.parse(started.body)).toMatchObject({ verdict: 'ready', stage: 'ready' });
    expect((await apiGet({ url }, '/readyz', 5_000)).status).toBe(200);
  });

  it.for([
    ['POST', '/v1/status', 405],
    ['PUT', '/metrics', 405],
    ['DELETE', '/readyz', 405],
    ['HEAD', '/livez', 200],
    ['HEAD', '/nope', 404],
    ['GET', '/nope', 404],
    ['POST', '/', 405],
    ['GET', '/v1/status/../../etc/passwd', 404],
    ['GET', '/metrics/', 404],
    ['POST', '/v1/nodes/1/events', 404],
  ] as const)('%s %s answers %i', async ([method, path, status]) => {
    const { model } = statusModel();
    const { url } = await serve(model);
    const answer = await raw(url, method, path);
    expect(answer.status).toBe(status);
    if (status === 405) expect(answer.headers.allow).toBe('GET, HEAD');
  });

  it('serves the live page at /: HTML that follows v1/events relative to itself', async () => {
    const { model } = statusModel();
    const { url } = await serve(model);
    const answer = await raw(url, 'GET', '/');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.body).toMatch(/^<!doctype html>/i);
    expect(answer.body).toContain("new EventSource('v1/events')");
  });

  it('ignores the query string: /v1/status?x=1 is /v1/status', async () => {
    const { model } = statusModel();
    const { url } = await serve(model);
    expect((await apiGet({ url }, '/v1/status?pretty=1', 5_000)).status).toBe(200);
  });
});

describe('unix socket', () => {
  it('serves the same API on a socket only its owner may use (mode 0600), and removes it on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spinup-sock-'));
    dirs.push(dir);
    const { model, feed } = statusModel();
    feed(fixtureLines(READY_LOG));
    const server = new StatusServer({ model });
    open.push(server);
    const path = join(dir, 'run.sock');
    await server.listenUnix(path);
    const stats = statSync(path);
    expect(stats.isSocket()).toBe(true);
    expect(stats.mode & 0o777).toBe(0o600);
    const answer = await apiGet({ socket: path }, '/readyz', 5_000);
    expect(answer.status).toBe(200);
    await server.close();
    expect(() => statSync(path)).toThrow();
  });
});

describe('/v1/events', () => {
  it('a client that disconnects and reconnects with Last-Event-ID loses no event', async () => {
    const { model, feed } = statusModel();
    const { url } = await serve(model);
    const lines = fixtureLines(READY_LOG);
    feed(lines.slice(0, 30));
    const seen: StreamedEvent[] = [];
    const first = new AbortController();
    // Leaves after the third event, as a dropped connection would.
    let lastId = await readEvents({
      target: { url },
      afterId: 0,
      signal: first.signal,
      onEvent: (event) => {
        seen.push(event);
        if (seen.length === 3) first.abort();
      },
    });
    expect(lastId).toBe(3);
    feed(lines.slice(30)); // the rest of the start happens while nobody listens
    expect(model.log.latestId).toBeGreaterThan(6);
    const second = new AbortController();
    lastId = await readEvents({
      target: { url },
      afterId: lastId,
      signal: second.signal,
      onEvent: (event) => {
        seen.push(event);
        if (event.type === 'verdict') second.abort();
      },
    });
    const all = model.log.since(0);
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(seen.map((e) => e.data)).toEqual(all.map((e) => e.data));
    expect(seen.map((e) => e.type)).toEqual(all.map((e) => e.type));
    expect(seen.at(-1)).toMatchObject({ type: 'verdict' });
    expect(JSON.parse(seen.at(-1)!.data)).toMatchObject({ verdict: 'ready' });
  });

  it('a replay (1.6 MB) larger than the client buffer (64 KiB) arrives whole, paced by what the client reads', async () => {
    const pad = 'y'.repeat(1_000);
    const { model } = statusModel({ toJson: (event) => ({ ...eventJson(event), pad }) });
    const { server, url } = await serve(model, { sseBufferBytes: 64 * 1024 });
    for (let i = 1; i <= 1_500; i++) model.events([{ type: 'warning', at: i, line: { lineNo: i, text: `line ${i}`, at: i }, rule: 'test/warning', message: 'w' }]);
    const ids: number[] = [];
    const done = new AbortController();
    await readEvents({
      target: { url },
      afterId: 0,
      signal: done.signal,
      onEvent: (event) => {
        ids.push(event.id);
        if (event.id === 1_500) done.abort();
      },
    });
    expect(ids).toEqual(Array.from({ length: 1_500 }, (_, i) => i + 1));
    expect(server.hub.dropped).toBe(0);
  });

  it('a client whose Last-Event-ID is older than the log keeps is told so, then gets what is kept', async () => {
    const { model } = statusModel({ limits: { maxEvents: 10 } });
    const { url } = await serve(model);
    for (let i = 1; i <= 25; i++) model.events([{ type: 'warning', at: i, line: { lineNo: i, text: `line ${i}`, at: i }, rule: 'test/warning', message: 'w' }]);
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(new URL('/v1/events', url), { headers: { 'last-event-id': '3' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
          if (body.includes('id: 25\n')) {
            req.destroy();
            resolve(body);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(text).toContain(': events 4-15 are no longer kept\n\n');
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
  });

  it('sends keepalive comments on a quiet stream', async () => {
    const { model } = statusModel();
    const { url } = await serve(model, { keepaliveMs: 50 });
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(new URL('/v1/events', url), (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
          if ((body.match(/: keepalive/g) ?? []).length >= 2) {
            req.destroy();
            resolve(body);
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(text).toMatch(/^: spinup events/);
    expect(text).toContain(': keepalive\n\n');
  });

  it('a client that connects and never reads is dropped at its buffer: memory does not grow with the events', async () => {
    const pad = 'x'.repeat(50_000);
    const { model } = statusModel({ toJson: (event) => ({ ...eventJson(event), pad }) });
    const bufferBytes = 256 * 1024;
    const { server, url } = await serve(model, { sseBufferBytes: bufferBytes });
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    socket.pause(); // never reads: what is sent piles up in the kernel, then in spinup
    for (let waited = 0; server.hub.size === 0; waited += 10) {
      if (waited > 10_000) throw new Error('the client never subscribed');
      await new Promise((r) => setTimeout(r, 10));
    }
    const before = retained();
    let most = 0;
    const events = 6_000; // 300 MB of events in all
    for (let i = 1; i <= events; i++) {
      const warning: SessionEvent = { type: 'warning', at: i, line: { lineNo: i, text: `line ${i}`, at: i }, rule: 'test/warning', message: 'a warning' };
      model.events([warning]);
      most = Math.max(most, server.hub.maxBuffered);
      // Let the socket move what the kernel takes, as a live loop would between lines.
      if (i % 200 === 0) await new Promise((r) => setImmediate(r));
    }
    const grown = retained() - before;
    // An event is written whole once the buffer has room: the bound is the buffer plus one event.
    expect(most).toBeLessThanOrEqual(bufferBytes + 51_000);
    expect(server.hub.dropped).toBe(1);
    expect(server.hub.size).toBe(0);
    // Without the bound, the 300 MB would be held for the client; with it, the event log's 2 MB and noise.
    // Measured as what a full GC leaves (RSS also counts the garbage of 300 MB of events that V8
    // had not collected yet: 105 MB on a busy machine, though nothing was held).
    expect(grown).toBeLessThan(100 * 1024 * 1024);
    socket.destroy();
  });
});

/** Bytes the process holds after a full GC: its heap in use and the memory outside it (Buffers). */
function retained(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}
