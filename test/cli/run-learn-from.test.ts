/**
 * Issue 28: `spinup run --learn-from URL` (and SPINUP_LEARN_FROM), on real processes: a fake
 * Prometheus on loopback that knows the model; /v1/status says the budgets rest on the fleet and
 * gives the ETA to READY while the start goes on; a Prometheus that is gone costs one line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { apiGet } from '../../src/serve/api-client.js';
import type { StatusSnapshot } from '../../src/status/status-snapshot.js';
import { PidTracker } from '../io/pid-tracker.js';
import { repoRoot } from '../helpers/run-main.js';
import { spinup, until } from '../helpers/spinup-process.js';

const READY_LOG = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const REPLAY = join(repoRoot, 'test/fixture-servers/replay-log.mjs');
const MODEL = '/home/user/Qwen/QwQ-32B';
const scratch = mkdtempSync(join(tmpdir(), 'spinup-run-learn-'));
const tracker = new PidTracker();
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Knows 12 READY starts of the model: each stage's p50 and p95 (seconds), the same for every stage. */
async function fakePrometheus(): Promise<string> {
  const stages = ['launch', 'distributed_init', 'load_weights', 'kv_cache', 'cuda_graph', 'http_server', 'warmup'];
  const answer = (value: number) =>
    JSON.stringify({ status: 'success', data: { resultType: 'vector', result: stages.map((stage) => ({ metric: { family: 'sglang', model: MODEL, stage }, value: [1, String(value)] })) } });
  const server = createServer((req, res) => {
    const query = new URL(req.url!, 'http://x').searchParams.get('query') ?? '';
    res.end(answer(query.startsWith('histogram_quantile(0.5') ? 30 : query.startsWith('histogram_quantile(0.95') ? 45 : 12));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function startRun(name: string, args: string[], env: NodeJS.ProcessEnv = {}): ReturnType<typeof spinup> {
  const run = spinup(['run', '--quiet', '--no-state', '--no-history', ...args, '--log', join(scratch, `${name}.log`), '--listen', '127.0.0.1:0', '--', process.execPath, REPLAY, '--log', READY_LOG, '--speed', '4', '--max-gap-ms', '800', '--then', 'hang'], env);
  tracker.track(run.pid);
  return run;
}

describe('spinup run --learn-from', () => {
  it('/v1/status says the budgets rest on the fleet, and how many starts, with the ETA to READY while starting', async () => {
    const prometheus = await fakePrometheus();
    const run = startRun('learned', [], { SPINUP_LEARN_FROM: prometheus });
    const url = (await run.waitFor(/status API on (http:\/\/[\d.:]+)/))[1]!;
    const starting = await until(
      'a status while loading weights',
      async () => {
        const status = JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as StatusSnapshot;
        return status.verdict === 'pending' && status.stage === 'load_weights' ? status : undefined;
      },
      60_000,
    );
    expect(starting.learned).toMatchObject({ source: 'fleet', fleet_starts: 12, local_starts: 0, fleet_url: prometheus, text: `learned from the fleet (${prometheus}, 14d): 12 starts of this model` });
    // load_weights is never tightened, whatever the fleet says: a cold load (an empty page cache, a download) may take any time.
    expect(starting.budget).toMatchObject({ source: 'pack', ms: 75 * 60_000 });
    // What is left of load_weights by its median (30 s), and the four stages after it (30 s each).
    expect(starting.eta_ready_ms).toBe(30_000 - starting.stage_elapsed_ms + 4 * 30_000);
    await run.waitFor(/READY/, 60_000);
    expect(run.stderr()).not.toContain('was not used');
    run.child.kill('SIGINT');
    expect(await run.code).toBe(130);
  }, 90_000);

  it('a Prometheus that is gone: one line on stderr, and the start goes on to READY on the pack', async () => {
    const gone = await fakePrometheus();
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const run = startRun('fallback', ['--learn-from', gone]);
    await run.waitFor(/READY/, 60_000);
    expect(run.stderr().match(/was not used/g)).toHaveLength(1);
    expect(run.stderr()).toContain(`spinup: the fleet at ${gone} was not used (connection refused)`);
    run.child.kill('SIGINT');
    expect(await run.code).toBe(130);
  }, 90_000);
});
