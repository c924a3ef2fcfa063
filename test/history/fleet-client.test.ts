/**
 * Issue 28: asking the fleet's Prometheus, against small fake Prometheus servers on loopback:
 * the answers become figures; a slow, refused, unauthorized, empty or wrong answer becomes one
 * sentence, and a watch goes on without the fleet, saying so once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { askFleet, type FleetSource } from '../../src/history/fleet-client.js';
import { HISTORY_QUERIES, LEARN_QUERIES } from '../../src/history/fleet-queries.js';
import { formatFleet } from '../../src/history/fleet-table.js';
import { repoRoot, runMain } from '../helpers/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-fleet-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
});

async function fakePrometheus(handle: (query: string, req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => handle(new URL(req.url!, 'http://x').searchParams.get('query') ?? '', req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

const vector = (result: { metric: Record<string, string>; value: number }[]) =>
  JSON.stringify({ status: 'success', data: { resultType: 'vector', result: result.map((r) => ({ metric: r.metric, value: [1700000000, String(r.value)] })) } });
const qwq = { family: 'sglang', model: 'Qwen/QwQ-32B' };

/** A Prometheus that knows 3 READY starts and 2 failed ones of one model; the quantile of a stage it has no count for is NaN. */
function fleetAnswer(query: string): string {
  if (query.startsWith('histogram_quantile(0.5, sum by (family, model, stage')) return vector([{ metric: { ...qwq, stage: 'kv_cache' }, value: 20 }, { metric: { ...qwq, stage: 'warmup' }, value: NaN }]);
  if (query.startsWith('histogram_quantile(0.95, sum by (family, model, stage')) return vector([{ metric: { ...qwq, stage: 'kv_cache' }, value: 31.5 }]);
  if (query.startsWith('sum by (family, model, stage)')) return vector([{ metric: { ...qwq, stage: 'kv_cache' }, value: 3 }]);
  if (query.startsWith('histogram_quantile(0.5, sum by (family, model, le)')) return vector([{ metric: qwq, value: 90 }]);
  if (query.startsWith('histogram_quantile(0.95, sum by (family, model, le)')) return vector([{ metric: qwq, value: 150 }]);
  if (query.startsWith('sum by (family, model, verdict)')) return vector([{ metric: { ...qwq, verdict: 'ready' }, value: 3 }, { metric: { ...qwq, verdict: 'failed' }, value: 2 }]);
  if (query.startsWith('count by (family, model, cause)')) return vector([{ metric: { ...qwq, cause: 'gpu_oom' }, value: 2 }]);
  return JSON.stringify({ status: 'error', errorType: 'bad_data', error: `unexpected query ${query}` });
}

const source = (url: string, over: Partial<FleetSource> = {}): FleetSource => ({ url, window: '14d', timeoutMs: 2_000, ...over });

describe('askFleet', () => {
  it('turns the answers into per-model figures, sending the bearer token from its file', async () => {
    const token = join(dir, 'token');
    writeFileSync(token, 'sekret\n');
    const seen: string[] = [];
    const url = await fakePrometheus((query, req, res) => {
      seen.push(req.headers.authorization ?? '');
      res.end(fleetAnswer(query));
    });
    const answer = await askFleet(source(url, { tokenFile: token }), HISTORY_QUERIES);
    expect(seen).toHaveLength(HISTORY_QUERIES.length);
    expect(new Set(seen)).toEqual(new Set(['Bearer sekret']));
    expect(answer).toEqual({
      figures: {
        url,
        window: '14d',
        models: [{ ...qwq, starts: 3, stages: { kv_cache: { starts: 3, p50Ms: 20_000, p95Ms: 31_500 } }, total: { p50Ms: 90_000, p95Ms: 150_000 }, verdicts: { ready: 3, failed: 2 }, causes: { gpu_oom: 2 } }],
      },
    });
    const text = formatFleet((answer as { figures: Parameters<typeof formatFleet>[0] }).figures);
    expect(text).toContain('sglang Qwen/QwQ-32B: 3 ready of 5 starts (2 failed); to READY p50 1m30s, p95 2m30s');
    expect(text).toMatch(/^ {2}kv_cache +3 +20s +32s$/m);
    expect(text).toContain('  failures: gpu_oom 2');
  });

  it('a slow Prometheus: no answer within the timeout', async () => {
    const url = await fakePrometheus(() => {
      // Never answers.
    });
    expect(await askFleet(source(url, { timeoutMs: 300 }), LEARN_QUERIES)).toEqual({ problem: 'no answer within 300ms' });
  });

  it('refused, unauthorized, not a Prometheus, an error answer, an unreadable token: one sentence each', async () => {
    const closed = await fakePrometheus(() => {});
    await new Promise((resolve) => servers.pop()!.close(resolve));
    expect(await askFleet(source(closed), LEARN_QUERIES)).toEqual({ problem: 'connection refused' });
    const unauthorized = await fakePrometheus((_q, _req, res) => {
      res.statusCode = 401;
      res.end('Unauthorized');
    });
    expect(await askFleet(source(unauthorized), LEARN_QUERIES)).toEqual({ problem: 'HTTP 401 (the answer is not JSON (is the URL a Prometheus?))' });
    const wrong = await fakePrometheus((_q, _req, res) => res.end(JSON.stringify({ status: 'error', error: 'query timed out' })));
    expect(await askFleet(source(wrong), LEARN_QUERIES)).toEqual({ problem: 'Prometheus answered "query timed out"' });
    expect(await askFleet(source(wrong, { tokenFile: join(dir, 'missing') }), LEARN_QUERIES)).toEqual({ problem: `cannot read ${join(dir, 'missing')} (ENOENT)` });
  });
});

describe('watch --learn-from a Prometheus with nothing to teach', () => {
  const log = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');

  it('an empty answer: said once on stderr, and the watch ends as it would without it', async () => {
    const url = await fakePrometheus((_q, _req, res) => res.end(vector([])));
    const run = await runMain(['watch', '--no-follow', '--no-history', '--learn-from', url, log]);
    expect(run.stderr.match(/was not used/g)).toHaveLength(1);
    expect(run.stderr).toContain(`spinup: the fleet at ${url} was not used (no READY start of any model over 14d); learning from this host's history, then the pack`);
    const without = await runMain(['watch', '--no-follow', '--no-history', log]);
    expect(run.stdout).toBe(without.stdout);
    expect(run.code).toBe(0);
  });

  it('usage: a URL that is none, a window Prometheus would refuse, --learn-window alone', async () => {
    for (const [args, message] of [
      [['--learn-from', 'prometheus:9090'], '--learn-from wants the http(s) URL of a Prometheus, not "prometheus:9090"'],
      [['--learn-from', 'http://127.0.0.1:9', '--learn-window', '2 weeks'], '--learn-window wants a Prometheus duration like 14d, 36h or 2w, not "2 weeks"'],
      [['--learn-window', '7d'], '--learn-window needs --learn-from URL (or SPINUP_LEARN_FROM)'],
    ] as const) {
      const run = await runMain(['watch', '--no-follow', '--no-history', ...args, log]);
      expect(run.stderr).toContain(message);
      expect(run.code).toBe(64);
    }
  });

  it('SPINUP_LEARN_FROM, as a pod sets it, is asked like --learn-from', async () => {
    let asked = 0;
    const url = await fakePrometheus((_q, _req, res) => {
      asked++;
      res.end(vector([]));
    });
    const run = await runMain(['watch', '--no-follow', '--no-history', log], { env: { ...process.env, SPINUP_LEARN_FROM: url } });
    expect(asked).toBe(LEARN_QUERIES.length);
    expect(run.stderr).toContain(`the fleet at ${url} was not used`);
  });
});
