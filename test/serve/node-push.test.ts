import { createServer } from 'node:net';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { eventJson } from '../../src/cli/format/verdict-json.js';
import type { Verdict } from '../../src/core/events.js';
import { GroupPusher } from '../../src/serve/group-pusher.js';
import { PUSH_BODY_LIMIT, tokenMatches, type NodePushReceiver } from '../../src/serve/node-push.js';
import { StatusServer } from '../../src/serve/status-server.js';
import { until } from '../helpers/spinup-process.js';
import { statusModel } from '../helpers/status-model.js';

// The one route that is not GET, on a real server on loopback, with the real follower client.
const open: { close: () => Promise<void> | void }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

interface Recorder extends NodePushReceiver {
  pushes: { node: number; lines: unknown[] }[];
  refused: number;
}

function recorder(token?: string): Recorder {
  const r: Recorder = {
    token,
    pushes: [],
    refused: 0,
    receive: (node, lines) => {
      r.pushes.push({ node, lines });
      return { group: 'pending' };
    },
    onUnauthorized: () => r.refused++,
  };
  return r;
}

async function serve(receiver?: NodePushReceiver, port = 0): Promise<string> {
  const server = new StatusServer({ model: statusModel({ command: 'run' }).model });
  if (receiver) server.acceptPushes(receiver);
  open.push(server);
  return server.listenTcp({ host: '127.0.0.1', port, text: String(port) });
}

function raw(url: string, method: string, path: string, options: { body?: string; token?: string } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const req = request(new URL(path, url), { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    // A server that refuses a large body early may reset the connection before the rest is sent.
    req.on('error', reject);
    req.end(options.body);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

function pusher(leader: string, options: { token?: string; problems?: string[] } = {}): GroupPusher {
  const p = new GroupPusher({ leader, node: 1, token: options.token, heartbeatMs: 100, toJson: eventJson, onProblem: (text) => options.problems?.push(text) });
  open.push({ close: () => p.close(0) });
  return p;
}

const failed: Verdict = { verdict: 'failed', stage: 'load_weights', at: 5, elapsedMs: 5, reason: 'out of memory', cause: 'gpu_oom', evidence: [{ lineNo: 7, text: 'torch.OutOfMemoryError', at: 5 }], symptoms: [] };

describe('POST /v1/nodes/N/events', () => {
  it('a follower started before its head retries with backoff, then delivers what it kept, in order, and beats', async () => {
    const port = await freePort();
    const problems: string[] = [];
    const p = pusher(`http://127.0.0.1:${port}`, { problems });
    p.start();
    p.events([{ type: 'restart', at: 1, line: { lineNo: 1, text: 'x', at: 1 }, rule: 'r' }]);
    p.verdict(failed);
    await until('a refused connection', () => problems.length > 0 || undefined);
    await new Promise((r) => setTimeout(r, 500));
    const head = recorder();
    await serve(head, port);
    await until('the kept events', () => head.pushes.some((push) => push.lines.length > 0) || undefined, 10_000);
    const lines = head.pushes.flatMap((push) => push.lines) as { type: string }[];
    expect(lines.map((l) => l.type)).toEqual(['restart', 'verdict']);
    expect(lines[1]).toMatchObject({ verdict: 'failed', cause: 'gpu_oom', evidence: [{ line: 7 }] });
    // Empty pushes go on: the heartbeat.
    await until('heartbeats', () => head.pushes.filter((push) => push.lines.length === 0).length >= 2 || undefined, 10_000);
    expect(head.pushes.every((push) => push.node === 1)).toBe(true);
    expect(problems).toEqual([expect.stringContaining('cannot reach the group leader')]);
  });

  it('a wrong token is refused with 401 on every push, and the follower says so once', async () => {
    const head = recorder('s3cret');
    const url = await serve(head);
    const problems: string[] = [];
    pusher(url, { token: 'wrong', problems }).start();
    await until('several refusals', () => head.refused >= 3 || undefined, 15_000);
    expect(head.pushes).toEqual([]);
    expect(problems).toEqual([expect.stringContaining('refuses our token (401)')]);
    expect(await raw(url, 'POST', '/v1/nodes/1/events', { token: 's3cret', body: '{"type":"restart"}\n' })).toBe(200);
    expect(await raw(url, 'POST', '/v1/nodes/1/events', { body: '' })).toBe(401);
  });

  it('keeps 405 for every other method and path, 404 when nobody takes pushes, 413 past the body cap', async () => {
    const url = await serve(recorder());
    expect(await raw(url, 'GET', '/v1/nodes/1/events')).toBe(405);
    expect(await raw(url, 'POST', '/v1/status')).toBe(405);
    expect(await raw(url, 'PUT', '/v1/nodes/1/events')).toBe(405);
    expect(await raw(url, 'POST', '/v1/nodes/x/events')).toBe(404);
    const big = 'x'.repeat(PUSH_BODY_LIMIT + 1);
    expect(await raw(url, 'POST', '/v1/nodes/1/events', { body: big }).catch(() => 413)).toBe(413);
    const single = await serve();
    expect(await raw(single, 'POST', '/v1/nodes/1/events')).toBe(404);
  });
});

describe('tokenMatches', () => {
  it.for([
    ['the token', 'Bearer s3cret', true],
    ['another token', 'Bearer s3creT', false],
    ['a longer token', 'Bearer s3cret-and-more', false],
    ['no header', undefined, false],
    ['another scheme', 'Basic s3cret', false],
  ] as const)('%s', ([, header, expected]) => {
    expect(tokenMatches(header, 's3cret')).toBe(expected);
  });
});
