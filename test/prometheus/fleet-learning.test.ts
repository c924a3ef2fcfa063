/**
 * Issue 28, end to end: what the fleet has learned, from a real Prometheus. Three `spinup run
 * --listen` processes replay one model's start at three speeds (its log's times stretched ×1,
 * ×1.5, ×2); Prometheus scrapes their /metrics every second; then a new `spinup watch
 * --learn-from` of a slower start of the same model learns its budgets and ETA from the fleet
 * and calls a stall the pack's budget would have missed for another 10 minutes and more. With
 * Prometheus stopped, the same watch falls back, says so once, and ends as a watch without it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiGet } from '../../src/serve/api-client.js';
import { freePort } from '../cli/run-harness.js';
import { PidTracker } from '../io/pid-tracker.js';
import { missingToolMessage, requireTool } from '../helpers/outside-tool.js';
import { BIN, spinup, until } from '../helpers/spinup-process.js';
import { repoRoot } from '../helpers/run-main.js';

const PROMETHEUS = 'prometheus/usr/bin/prometheus';
const prometheus = requireTool(PROMETHEUS);
const FIXTURE = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const MODEL = '/home/user/Qwen/QwQ-32B';
const REPLAY = join(repoRoot, 'test/fixture-servers/replay-log.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'spinup-fleet-'));
const tracker = new PidTracker();

afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The fixture's two timestamp formats: SGLang's `[2025-03-08 12:29:11 TP0]` and `INFO 03-07 12:29:08`.
const FULL = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/;
const SHORT = /^(INFO|WARNING|ERROR) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/;
const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * The fixture with each line's time moved by `retime(ms since that format's first stamp, line
 * index)`: a new log in the scratch dir (fixtures are never edited).
 */
function retimedLog(name: string, retime: (sinceFirstMs: number, index: number) => number): string {
  const firsts = new Map<string, number>();
  const move = (format: string, ms: number, index: number): Date => {
    const first = firsts.get(format) ?? ms;
    firsts.set(format, first);
    return new Date(first + retime(ms - first, index));
  };
  const lines = readFileSync(FIXTURE, 'latin1').split('\n').map((line, index) => {
    const full = FULL.exec(line);
    if (full) {
      const [, y, mo, d, h, mi, s] = full.map(Number) as number[];
      const t = move('full', Date.UTC(y!, mo! - 1, d, h, mi, s), index);
      return `[${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${line.slice(full[0].length)}`;
    }
    const short = SHORT.exec(line);
    if (short) {
      const [mo, d, h, mi, s] = short.slice(2).map(Number) as number[];
      const t = move('short', Date.UTC(2000, mo! - 1, d, h, mi, s), index);
      return `${short[1]} ${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${line.slice(short[0].length)}`;
    }
    return line;
  });
  const path = join(scratch, name);
  writeFileSync(path, lines.join('\n'), 'latin1');
  return path;
}

function startRun(name: string, log: string): ReturnType<typeof spinup> {
  const run = spinup(['run', '--quiet', '--no-state', '--no-history', '--log', join(scratch, `${name}.out`), '--listen', '127.0.0.1:0', '--', process.execPath, REPLAY, '--log', log, '--speed', '20', '--max-gap-ms', '300', '--then', 'hang'], {});
  tracker.track(run.pid);
  return run;
}

function startPrometheus(path: string, port: number, targets: string[]): ChildProcess {
  const config = join(scratch, 'prometheus.yml');
  writeFileSync(config, stringify({ global: { scrape_interval: '1s', evaluation_interval: '1s' }, scrape_configs: [{ job_name: 'spinup', static_configs: [{ targets }] }] }));
  const server = spawn(path, [`--config.file=${config}`, `--storage.tsdb.path=${join(scratch, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: 'ignore' });
  tracker.track(server.pid ?? 0);
  return server;
}

async function promQuery(api: string, expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await apiGet({ url: api }, `/api/v1/query?query=${encodeURIComponent(expr)}`, 5_000);
  return (JSON.parse(res.body) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
}

type Json = Record<string, any>;

/** `spinup watch --no-follow --json` of a log, to its exit: its events, its stderr, its exit code. */
function watch(args: string[], log: string, env: NodeJS.ProcessEnv = {}): { events: Json[]; stderr: string; code: number | null } {
  const result = spawnSync(process.execPath, [BIN, 'watch', '--no-follow', '--json', ...args, log], { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: 60_000 });
  const events = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Json);
  return { events, stderr: result.stderr, code: result.status };
}

const verdictOf = (events: Json[]): Json => events.find((e) => e.type === 'verdict')!;
const stageEvent = (events: Json[], stage: string): Json => events.find((e) => e.type === 'stage' && e.stage === stage)!;

describe.skipIf(prometheus.skip)('fleet learning from a real Prometheus (--learn-from)', () => {
  it('a slower start learns budgets and an ETA from the fleet and stalls at its p95 × margin; with Prometheus gone it falls back, says so once, and ends as before', async () => {
    if (prometheus.path === undefined) throw new Error(missingToolMessage(PROMETHEUS));
    // The fleet: one model's start at three speeds, each replayed by its own spinup run --listen.
    const runs = [1, 1.5, 2].map((factor) => startRun(`fleet-${factor}`, retimedLog(`fleet-${factor}.log`, (ms) => ms * factor)));
    // The slow start: the same log, silent for 13 minutes after distributed_init began (line 8).
    const slow = retimedLog('slow.log', (ms, index) => (index >= 8 ? ms + 13 * 60_000 : ms));
    const targets = await Promise.all(runs.map(async (run) => (await run.waitFor(/status API on http:\/\/([\d.:]+)/))[1]!));
    const port = await freePort();
    const api = `http://127.0.0.1:${port}`;
    let server: ChildProcess | undefined = startPrometheus(prometheus.path, port, targets);
    const state = join(scratch, 'state');
    mkdirSync(state);
    try {
      await until('Prometheus ready', async () => ((await apiGet({ url: api }, '/-/ready', 2_000).catch(() => undefined))?.status === 200 ? true : undefined), 60_000);
      const scraped = `sum(max_over_time(spinup_startup_stage_duration_seconds_count{model="${MODEL}",stage="distributed_init",verdict="ready"}[1h]))`;
      await until('the three READY starts scraped', async () => ((await promQuery(api, scraped))[0]?.value[1] === '3' ? true : undefined), 90_000);
      for (const run of runs) run.child.kill('SIGINT');
      await Promise.all(runs.map((run) => run.code));

      // What the fleet says of distributed_init (2, 3 and 4 s): the p95 a budget is learned from.
      const p95 = await promQuery(api, `histogram_quantile(0.95, sum by (le) (max_over_time(spinup_startup_stage_duration_seconds_bucket{model="${MODEL}",stage="distributed_init",verdict="ready"}[1h])))`);
      const p95Ms = Math.round(Number(p95[0]!.value[1]) * 1000);
      expect(p95Ms).toBeGreaterThan(2_000);
      expect(p95Ms).toBeLessThan(5_000);

      // Without the fleet (a pod's empty history): the pack's 15m budget lets the 13-minute silence pass.
      const alone = watch(['--no-history'], slow);
      expect(verdictOf(alone.events)).toMatchObject({ verdict: 'ready' });
      expect(verdictOf(alone.events).learned, 'nothing learned, no fleet asked: the verdict reads as before').toBeUndefined();
      expect(alone.code).toBe(0);
      const packBudgetMs = stageEvent(alone.events, 'distributed_init').budget.ms as number;

      // With it: budgets and an ETA from the fleet, and STALLED at 3 × p95 + 2m.
      const learned = watch(['--no-history', '--learn-from', api], slow, { XDG_STATE_HOME: state });
      const init = stageEvent(learned.events, 'distributed_init');
      expect(init.budget).toMatchObject({ source: 'learned', ms: 3 * p95Ms + 120_000 });
      expect(init.budget.detail).toContain('learned from 3 starts of this model in the fleet over 14d');
      expect(init.expected).toMatchObject({ scope: 'fleet', starts: 3, max_ms: p95Ms });
      expect(init.eta_ready_ms).toBeGreaterThan(init.expected.median_ms);
      const verdict = verdictOf(learned.events);
      expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'distributed_init', learned: { source: 'fleet', fleet_starts: 3, fleet_url: api } });
      expect(verdict.budget.ms).toBe(3 * p95Ms + 120_000);
      expect(packBudgetMs - verdict.budget.ms, 'the pack would have called it this much later').toBeGreaterThan(10 * 60_000);
      expect(learned.code).toBe(2);
      expect(learned.stderr).not.toContain('was not used');

      // `spinup status` says which figures the start used, and how many starts they rest on.
      const listed = spawnSync(process.execPath, [BIN, 'status', '--json'], { env: { ...process.env, XDG_STATE_HOME: state }, encoding: 'utf8' });
      const entry = JSON.parse(listed.stdout.trim().split('\n')[0]!) as Json;
      expect(entry.status.learned).toMatchObject({ source: 'fleet', fleet_starts: 3 });
      const details = spawnSync(process.execPath, [BIN, 'status', entry.id], { env: { ...process.env, XDG_STATE_HOME: state, NO_COLOR: '1' }, encoding: 'utf8' });
      expect(details.stdout).toContain(`budgets    learned from the fleet (${api}, 14d): 3 starts of this model`);

      // `spinup history --from`: the fleet's table, from the same queries.
      const table = spawnSync(process.execPath, [BIN, 'history', '--from', api], { env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8' });
      expect(table.stdout).toContain(`The fleet at ${api}, over 14d: 1 model`);
      expect(table.stdout).toMatch(new RegExp(`sglang ${MODEL}: 3 ready starts; to READY p50 \\d+s, p95 \\d+s`));
      expect(table.stdout).toMatch(/^ {2}distributed_init +3 +\d+s +\d+s$/m);
      expect(table.status).toBe(0);

      // Prometheus gone: the same watch falls back to the pack, says so once on stderr, and ends as before.
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('close', resolve));
      server = undefined;
      const fallen = watch(['--no-history', '--learn-from', api], slow);
      expect(fallen.stderr.match(/was not used/g)).toHaveLength(1);
      expect(fallen.stderr).toContain(`spinup: the fleet at ${api} was not used (connection refused); learning from this host's history, then the pack`);
      expect(verdictOf(fallen.events)).toMatchObject({ verdict: verdictOf(alone.events).verdict, stage: 'ready', learned: { source: 'pack', fleet_url: api } });
      expect(fallen.code).toBe(alone.code);
      const noTable = spawnSync(process.execPath, [BIN, 'history', '--from', api], { encoding: 'utf8' });
      expect(noTable.stderr).toBe(`spinup history: the fleet at ${api} did not answer as a Prometheus: connection refused\n`);
      expect(noTable.status).toBe(69);
    } finally {
      if (server) {
        server.kill('SIGTERM');
        await new Promise((resolve) => server!.once('close', resolve));
      }
      for (const run of runs) if (run.child.exitCode === null) run.child.kill('SIGINT');
      await Promise.all(runs.map((run) => run.code));
    }
  }, 150_000);
});
