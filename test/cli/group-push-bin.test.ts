import { request } from 'node:http';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { apiGet, readEvents } from '../../src/serve/api-client.js';
import type { StatusSnapshot } from '../../src/status/status-snapshot.js';
import { repoRoot } from '../helpers/run-main.js';
import { spinup, until, type SpinupProcess } from '../helpers/spinup-process.js';
import { runFiles, stateHomes } from '../helpers/state-homes.js';

// One start on two machines, played on loopback by two real `spinup run` processes: node 0 (the
// head, --listen) replays the real node-0 log of sglang#3398, node 1 (a follower, --group-leader)
// replays the same start's node-1 log and pushes its events and heartbeats to the head.
const NODE0 = join(repoRoot, 'fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log');
const NODE1 = join(repoRoot, 'fixtures/sglang/19-multinode-h20-node1-hang-after-nccl-init.log');
// The READY path needs a head that gets ready; no real group of ours does, so a real single-node ready log plays node 0.
const READY_LOG = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const REPLAY = join(repoRoot, 'test/fixture-servers/replay-log.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'spinup-group-push-'));
const started: SpinupProcess[] = [];
let logs = 0;

afterEach(async () => {
  for (const run of started.splice(0)) {
    // A follower killed with SIGKILL leaves its server behind (its own process group): end both.
    for (const match of run.stdout().matchAll(/"type":"started","pid":(\d+)/g)) kill(-Number(match[1]), 'SIGKILL');
    kill(run.pid, 'SIGCONT');
    kill(run.pid, 'SIGKILL');
    await run.code;
  }
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** `spinup run --json` over a replayed log; `pace` stretches the log's own gaps (the 30 min silence of node 0). */
function node(args: string[], log: string, pace: string[] = []): SpinupProcess {
  const run = spinup(['run', '--json', '--no-state', '--heartbeat', '200ms', '--log', join(scratch, `node-${++logs}.log`), ...args, '--', process.execPath, REPLAY, '--log', log, '--then', 'hang', ...pace], {});
  started.push(run);
  return run;
}

function head(extra: string[] = [], pace: string[] = []): SpinupProcess {
  return node(['--listen', '127.0.0.1:0', '--group-size', '2', ...extra], NODE0, pace);
}

async function urlOf(run: SpinupProcess): Promise<string> {
  return (await run.waitFor(/status API on (http:\/\/\S+) /))[1]!;
}

function follower(url: string, extra: string[] = []): SpinupProcess {
  return node(['--group-leader', url, '--node-rank', '1', ...extra], NODE1);
}

/** A raw push, as a follower's spinup makes one (or a hand-made one, with no follower header). */
function post(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method: 'POST', headers: { 'content-length': 0, ...headers }, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

type Json = Record<string, any>;
function jsonLines(run: SpinupProcess): Json[] {
  return run
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json);
}

async function groupVerdict(run: SpinupProcess): Promise<Json> {
  return until('the group verdict', () => jsonLines(run).find((e) => e.type === 'group_verdict'), 30_000);
}

/**
 * The event replay a late `attach` (or /v1/events) is given, up to the first `verdict` event that
 * `wanted` accepts: what a client that comes after the fact learns of the start.
 */
async function replayedVerdict(url: string, wanted: (verdict: Json) => boolean): Promise<Json> {
  const controller = new AbortController();
  let found: Json | undefined;
  const reading = readEvents({
    target: { url },
    afterId: 0,
    signal: controller.signal,
    onEvent: (event) => {
      if (event.type !== 'verdict' || found) return;
      const json = JSON.parse(event.data) as Json;
      if (!wanted(json)) return;
      found = json;
      controller.abort();
    },
  });
  const timer = setTimeout(() => controller.abort(), 10_000);
  await reading;
  clearTimeout(timer);
  if (!found) throw new Error('no such verdict in the event replay');
  return found;
}

// Node 0's 30 minutes of silence in distributed_init, played as 18 s: time for a follower to go away mid-start.
const LONG_SILENCE = ['--speed', '100', '--max-gap-ms', '60000', '--pace-gaps'];

describe('spinup run across machines: head --listen --group-size 2, follower --group-leader', () => {
  it("gives the group's verdict: node 0's rendezvous timeout, with node 1 joined and seen through the head's API", async () => {
    const h = head([], ['--speed', '300', '--max-gap-ms', '60000', '--pace-gaps']);
    const url = await urlOf(h);
    const f = follower(url);
    await until('node 1 joined', () => jsonLines(h).find((e) => e.type === 'node_joined' && e.node === 1));
    const status = JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as StatusSnapshot;
    expect(status.group).toMatchObject({ verdict: 'pending', head: 0, expected: 2, nodes: [{ node_rank: 0 }, { node_rank: 1, joined: true, lost: false }] });
    expect((await apiGet({ url }, '/readyz', 5_000)).status).toBe(503);
    const metrics = (await apiGet({ url }, '/metrics', 5_000)).body;
    expect(metrics).toMatch(/^spinup_node_up\{[^}]*node_rank="1"\} 1$/m);
    expect(metrics).toMatch(/^spinup_group_nodes_expected\{[^}]*\} 2$/m);

    const verdict = await groupVerdict(h);
    expect(verdict).toMatchObject({ verdict: 'failed', node: 0, stage: 'distributed_init', cause: 'distributed_error', group: { expected: 2, expected_from: 'option' } });
    expect(verdict.group.nodes).toMatchObject([{ node: 0, joined: true, verdict: 'failed' }, { node: 1, joined: true }]);
    expect(await h.code).toBe(1);
    // The follower's own run goes on (its node waits in the rendezvous): the push decided nothing for it.
    expect(f.child.exitCode).toBeNull();
    expect(jsonLines(f).some((e) => e.type === 'verdict')).toBe(false);
  }, 60_000);

  it('a follower whose spinup is killed (SIGKILL) mid-start fails the group, naming node 1, within three heartbeats', async () => {
    const h = head([], LONG_SILENCE);
    const url = await urlOf(h);
    const f = follower(url);
    await until('node 1 joined', () => jsonLines(h).find((e) => e.type === 'node_joined' && e.node === 1));
    const killedAt = Date.now();
    f.child.kill('SIGKILL');
    const verdict = await groupVerdict(h);
    const seenAfterMs = Date.now() - killedAt;
    expect(verdict).toMatchObject({ verdict: 'failed', node: 1, rule: 'group/stopped-reporting', message: 'node 1 stopped reporting in none' });
    // The head's own measure of the silence: three 200 ms intervals, give or take a tick.
    expect(verdict.silent_ms).toBeGreaterThanOrEqual(600);
    expect(verdict.silent_ms).toBeLessThan(2_000);
    expect(seenAfterMs).toBeLessThan(10_000); // bounded only: the machine is shared
    expect(await h.code).toBe(1);
  }, 60_000);

  it('a follower that stops reporting (SIGSTOP) fails the group: "node 1 stopped reporting in <stage>"', async () => {
    const h = head(['-q'], LONG_SILENCE);
    const url = await urlOf(h);
    const f = follower(url);
    await until('node 1 joined', async () => ((JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as StatusSnapshot).group?.nodes[1]?.joined ? true : undefined));
    f.child.kill('SIGSTOP');
    const verdict = await groupVerdict(h);
    expect(verdict).toMatchObject({ verdict: 'failed', node: 1, message: 'node 1 stopped reporting in none', group: { nodes: [{ node: 0 }, { node: 1, lost: true }] } });
    expect(await h.code).toBe(1);
  }, 60_000);

  it('a wrong token: every push gets 401, the head says so once, and node 1 never joins', async () => {
    const h = node(['--listen', '127.0.0.1:0', '--group-size', '2', '--group-token', 'right'], NODE0, LONG_SILENCE);
    const url = await urlOf(h);
    const f = follower(url, ['--group-token', 'wrong']);
    await f.waitFor(/refuses our token \(401\)/);
    // Several pushes later (backoff 200 ms, 400 ms, ...), still one word from the head.
    await new Promise((r) => setTimeout(r, 1_500));
    const said = jsonLines(h).filter((e) => e.type === 'group_note' && /refused a push for node 1 \(401\)/.test(e.text));
    expect(said).toHaveLength(1);
    expect(f.stderr().match(/refuses our token/g)).toHaveLength(1);
    expect(jsonLines(h).some((e) => e.type === 'node_joined' && e.node === 1)).toBe(false);
  }, 60_000);

  it('READY once the head is ready and node 1 joined; the follower takes its READY from the head; its server dying after is the group\'s after-ready failure', async () => {
    const h = node(['--listen', '127.0.0.1:0', '--group-size', '2'], READY_LOG);
    const url = await urlOf(h);
    await until('the head waiting for node 1', () => jsonLines(h).find((e) => e.type === 'waiting'));
    const f = follower(url, ['--listen', '127.0.0.1:0']);
    const own = await until('the follower READY', () => jsonLines(f).find((e) => e.type === 'verdict'));
    expect(own).toMatchObject({ verdict: 'ready', decided_by: 'group' });
    expect((await apiGet({ url: await urlOf(f) }, '/startupz', 5_000)).status).toBe(200);
    expect(await groupVerdict(h)).toMatchObject({ verdict: 'ready', node: 0, group: { nodes: [{ node: 0, verdict: 'ready' }, { node: 1, joined: true }] } });
    await until('the head /readyz 200', async () => ((await apiGet({ url }, '/readyz', 5_000)).status === 200 ? true : undefined));

    const server = Number(/"type":"started","pid":(\d+)/.exec(f.stdout())![1]);
    process.kill(-server, 'SIGKILL');
    const after = await until('the after-ready failure', () => jsonLines(h).find((e) => e.type === 'after_ready_failure' && e.node === 1));
    expect(after).toMatchObject({ verdict: 'failed', stage: 'ready' });
    expect(await h.code).toBe(1);
    // The head's own verdict line names the node: no process facts of the head's server (issue 25, item 8).
    const headVerdict = jsonLines(h).filter((e) => e.type === 'verdict' && e.decided_by === 'group').at(-1);
    expect(headVerdict).toMatchObject({ verdict: 'failed', stage: 'ready', node: 1, decided_by: 'group', message: expect.stringMatching(/^node 1: /) });
    expect(headVerdict?.process).toBeUndefined();
    expect(await f.code).toBe(1);
  }, 60_000);

  it('spinup watch can be the head too: it follows node 0\'s log and takes node 1\'s pushes, one READY for both', async () => {
    const log = join(scratch, `watched-${++logs}.log`);
    writeFileSync(log, '');
    const h = spinup(['watch', '--json', '--no-state', '--listen', '127.0.0.1:0', '--group-size', '2', '--heartbeat', '200ms', log], {});
    started.push(h);
    const url = await urlOf(h);
    // The start goes on live: a log already READY when watch opens it would be an earlier run, given 30 s.
    const [first, ...rest] = readFileSync(READY_LOG, 'utf8').split('\n');
    appendFileSync(log, `${first}\n`);
    await until('node 0 joined', () => jsonLines(h).find((e) => e.type === 'node_joined' && e.node === 0));
    appendFileSync(log, rest.join('\n'));
    await until('the head waiting for node 1', () => jsonLines(h).find((e) => e.type === 'waiting'));
    expect((await apiGet({ url }, '/readyz', 5_000)).status).toBe(503);
    const f = follower(url);
    expect(await groupVerdict(h)).toMatchObject({ verdict: 'ready', node: 0, group: { expected: 2, nodes: [{ node: 0, verdict: 'ready' }, { node: 1, joined: true }] } });
    expect(await until('the follower READY', () => jsonLines(f).find((e) => e.type === 'verdict'))).toMatchObject({ verdict: 'ready', decided_by: 'group' });
    // Issue 25, items 8 and 14: the head serves on after READY, and still takes node 1's events.
    await until('the head /readyz 200', async () => ((await apiGet({ url }, '/readyz', 5_000)).status === 200 ? true : undefined));
    const server = Number(/"type":"started","pid":(\d+)/.exec(f.stdout())![1]);
    process.kill(-server, 'SIGKILL');
    const after = await until('node 1 failed after ready', () => jsonLines(h).find((e) => e.type === 'after_ready_failure' && e.node === 1));
    expect(after).toMatchObject({ verdict: 'failed', cause: 'host_oom' });
    await until('the head /readyz 503', async () => ((await apiGet({ url }, '/readyz', 5_000)).status === 503 ? true : undefined));
    const status = JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as StatusSnapshot;
    expect(status.group?.nodes[1]).toMatchObject({ node_rank: 1, verdict: 'failed', stage: 'ready' });
    expect(status.reason).toMatch(/^node 1 failed after the group was READY: /);
    // Issue 25, item 19: the event replay a late `attach` reads names the node too, not only its words.
    expect(await replayedVerdict(url, (v) => v.verdict === 'failed')).toMatchObject({ node: 1, cause: 'host_oom', reason: expect.stringMatching(/^node 1 failed after the group was READY: /) });
    expect(h.child.exitCode).toBeNull();
    h.child.kill('SIGTERM');
    expect(await h.code).toBe(1);
  }, 60_000);

  it('the head ready but waiting for node 1, its own server dying: the group is FAILED on node 0', async () => {
    const run = spinup(['run', '--json', '--no-state', '--heartbeat', '200ms', '--log', join(scratch, `node-${++logs}.log`), '--listen', '127.0.0.1:0', '--group-size', '2', '--', process.execPath, REPLAY, '--log', READY_LOG, '--then', 'exit1'], {});
    started.push(run);
    const verdict = await groupVerdict(run);
    expect(verdict).toMatchObject({ verdict: 'failed', node: 0, group: { nodes: [{ node: 0, verdict: 'failed' }, { node: 1, joined: false }] } });
    expect(jsonLines(run).some((e) => e.type === 'waiting')).toBe(true);
    expect(await run.code).toBe(1);
  }, 60_000);

  // Issue 25, item 7: ranks are checked.
  it('a rank out of range: the head of a group of 2 answers 409 to node 2; the follower prints why and exits 64 (usage)', async () => {
    const h = head([], LONG_SILENCE);
    const url = await urlOf(h);
    const raw = await post(url, '/v1/nodes/2/events');
    expect(raw.status).toBe(409);
    expect(raw.body).toMatch(/node 2 is out of range: this group has 2 nodes \(ranks 0-1, size from --group-size\)/);
    const f = node(['--group-leader', url, '--node-rank', '2'], NODE1);
    expect(await f.code).toBe(64);
    expect(f.stderr()).toMatch(/refused node 2 \(409\): node 2 is out of range: this group has 2 nodes/);
    // Nothing of node 2 reached the group; node 1 is still awaited.
    expect(jsonLines(h).some((e) => e.type === 'node_joined' && e.node === 2)).toBe(false);
    const status = JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as StatusSnapshot;
    expect(status.group?.nodes.map((n) => n.node_rank)).toEqual([0, 1]);
  }, 60_000);

  it('two followers on one --node-rank: the second gets 409 and exits 64; the first keeps node 1', async () => {
    const h = head([], LONG_SILENCE);
    const url = await urlOf(h);
    const first = follower(url);
    await until('node 1 joined', () => jsonLines(h).find((e) => e.type === 'node_joined' && e.node === 1));
    const second = follower(url);
    expect(await second.code).toBe(64);
    expect(second.stderr()).toMatch(/refused node 1 \(409\): node 1 is already taken by another follower .*same --node-rank/);
    expect(jsonLines(h).some((e) => e.type === 'group_note' && /refused a push \(409\): node 1 is already taken/.test(e.text))).toBe(true);
    // The first follower goes on pushing, accepted (its own run is still on).
    expect(first.child.exitCode).toBeNull();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(jsonLines(h).some((e) => e.type === 'group_verdict')).toBe(false);
  }, 60_000);

  // Issue 25, item 6: a node that never joins.
  it('run head: READY but node 1 never joins; --join-budget 2s makes the group STALLED naming node 1 (exit 2)', async () => {
    const h = node(['--listen', '127.0.0.1:0', '--group-size', '2', '--join-budget', '2s'], READY_LOG);
    const verdict = await groupVerdict(h);
    expect(verdict).toMatchObject({ verdict: 'stalled', node: 1, stage: 'none', group: { nodes: [{ node: 0, verdict: 'ready' }, { node: 1, joined: false }] } });
    expect(verdict.reason).toMatch(/the head is ready but node 1 has not joined within its join budget of 2s/);
    expect(await h.code).toBe(2);
    expect((await apiGet({ url: await urlOf(h) }, '/readyz', 2_000).catch(() => ({ status: 0 }))).status).not.toBe(200);
  }, 60_000);

  it('run head: its server waiting idle for node 1 in distributed_init is no hang before the join budget (--idle gives way), which then names node 1', async () => {
    // The head's server stops in its rendezvous (its lines up to "Init torch distributed begin."), then sleeps
    // there, as ranks do until every node is up: --idle 2s alone would call that STALLED long before node 1 may join.
    const lines = readFileSync(READY_LOG, 'utf8').split('\n');
    const waiting = join(scratch, 'waiting-in-rendezvous.log');
    writeFileSync(waiting, `${lines.slice(0, lines.findIndex((line) => line.includes('Init torch distributed begin.')) + 4).join('\n')}\n`);
    const startedAt = Date.now();
    const h = node(['--listen', '127.0.0.1:0', '--group-size', '2', '--idle', '2s', '--join-budget', '8s'], waiting);
    const verdict = await groupVerdict(h);
    expect(verdict).toMatchObject({ verdict: 'stalled', node: 1 });
    expect(verdict.reason).toMatch(/node 1 has not joined within its join budget of 8s/);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(8_000);
    expect(jsonLines(h).filter((e) => e.type === 'verdict' && e.decided_by === 'activity')).toEqual([]);
    expect(await h.code).toBe(2);
  }, 60_000);

  it('run head: --timeout holds after the head is ready, while it waits for a follower (exit 2)', async () => {
    const startedAt = Date.now();
    const h = node(['--listen', '127.0.0.1:0', '--group-size', '2', '--stall', '3s', '--timeout', '4s'], READY_LOG);
    const verdict = await groupVerdict(h);
    expect(verdict).toMatchObject({ verdict: 'stalled', node: 1 });
    expect(verdict.reason).toMatch(/no group verdict within --timeout 4s; node 1 is furthest behind, and has not joined/);
    expect(await h.code).toBe(2);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
  }, 60_000);

  it('watch head: a follower that never pushes (a wrong --group-leader URL) stalls the group after --join-budget, naming it', async () => {
    const log = join(scratch, `watched-${++logs}.log`);
    writeFileSync(log, '');
    const h = spinup(['watch', '--json', '--no-state', '--listen', '127.0.0.1:0', '--group-size', '2', '--join-budget', '4s', log], {});
    started.push(h);
    await urlOf(h);
    const [first, ...rest] = readFileSync(READY_LOG, 'utf8').split('\n');
    appendFileSync(log, `${first}\n`);
    await until('node 0 joined', () => jsonLines(h).find((e) => e.type === 'node_joined' && e.node === 0));
    appendFileSync(log, rest.join('\n'));
    // A follower pointed at a port where no head listens: it never joins.
    const f = node(['--group-leader', 'http://127.0.0.1:9', '--node-rank', '1'], NODE1);
    const verdict = await groupVerdict(h);
    expect(verdict).toMatchObject({ verdict: 'stalled', node: 1, group: { nodes: [{ node: 0, verdict: 'ready' }, { node: 1, joined: false }] } });
    expect(verdict.reason).toMatch(/node 1 has not joined within its join budget of 4s/);
    expect(await h.code).toBe(2);
    expect(f.child.exitCode).toBeNull();
  }, 60_000);
});

// Issue 25, item 8: after READY the head goes on taking its followers' events.
describe('run head after READY: a follower\'s own READY and its death are the follower\'s, in words, /v1/status and /metrics', () => {
  const homes = stateHomes(scratch);

  it("the head's /v1/status and spinup_node_* follow node 1 after READY; its server's SIGKILL is reported as node 1's, with its cause", async () => {
    const home = homes();
    // Text mode: the verdict blocks are what a user reads on stderr. A state file keeps the last status.
    const h = spinup(['run', '--no-history', '--heartbeat', '200ms', '--log', join(scratch, `node-${++logs}.log`), '--listen', '127.0.0.1:0', '--group-size', '2', '--', process.execPath, REPLAY, '--log', READY_LOG, '--then', 'hang'], home.env);
    started.push(h);
    const url = await urlOf(h);
    await h.waitFor(/waiting for node 1 to join/);
    const f = follower(url);
    await h.waitFor(/^READY .*group of 2 nodes/m);
    type Group = NonNullable<StatusSnapshot['group']>;
    const group = async (): Promise<Group> => (JSON.parse((await apiGet({ url }, '/v1/status', 5_000)).body) as StatusSnapshot).group!;
    // The follower takes its READY from the head after the group's: the head's status says so (it used to stay "pending").
    await until('node 1 ready in the head\'s /v1/status', async () => ((await group()).nodes[1]?.verdict === 'ready' ? true : undefined));
    const metrics = (await apiGet({ url }, '/metrics', 5_000)).body;
    expect(metrics).toMatch(/^spinup_node_verdict\{[^}]*node_rank="1",verdict="ready"\} 1$/m);
    expect(metrics).toMatch(/^spinup_node_stage\{[^}]*node_rank="1",stage="ready"\} 1$/m);

    const server = Number(/"type":"started","pid":(\d+)/.exec(f.stdout())![1]);
    // Issue 25, item 19: read while the head still serves (it exits at the failure): the replay's verdict names node 1.
    const replayed = replayedVerdict(url, (v) => v.verdict === 'failed');
    process.kill(-server, 'SIGKILL');
    expect(await replayed).toMatchObject({ node: 1, cause: 'host_oom', message: expect.stringMatching(/^node 1: killed by SIGKILL/) });
    expect(await h.code).toBe(1);
    // The block names node 1 and its cause; not the head's own server, which is fine.
    expect(h.stderr()).toMatch(/^FAILED sglang {2}node 1 of 2: host_oom: killed by SIGKILL/m);
    expect(h.stderr()).toMatch(/^ {2}group {6}node 1 failed after the group was READY$/m);
    expect(h.stderr()).toMatch(/^ {2}nodes {6}0 ready in ready · 1 failed in ready; expected 2/m);
    // The last status the head wrote: the group part has node 1 failed, the start's verdict names node 1.
    const [state] = runFiles(home.runs);
    expect(state?.status.group?.nodes[1]).toMatchObject({ node_rank: 1, verdict: 'failed', stage: 'ready' });
    expect(state?.status.after_ready_failure).toMatchObject({ cause: 'host_oom', message: expect.stringMatching(/^node 1: killed by SIGKILL/) });
    expect(state?.status.reason).toMatch(/^node 1 failed after the group was READY: /);
  }, 60_000);

  it('a follower that stops reporting after READY (SIGSTOP) is named by the head: node 1 lost, in words and in the last status', async () => {
    const home = homes();
    const h = spinup(['run', '--no-history', '--heartbeat', '200ms', '--log', join(scratch, `node-${++logs}.log`), '--listen', '127.0.0.1:0', '--group-size', '2', '--', process.execPath, REPLAY, '--log', READY_LOG, '--then', 'hang'], home.env);
    started.push(h);
    const url = await urlOf(h);
    await h.waitFor(/waiting for node 1 to join/);
    const f = follower(url);
    await h.waitFor(/^READY .*group of 2 nodes/m);
    f.child.kill('SIGSTOP');
    expect(await h.code).toBe(1);
    expect(h.stderr()).toMatch(/^FAILED sglang {2}node 1 of 2: unknown: node 1 stopped reporting in /m);
    expect(h.stderr()).toMatch(/^ {2}nodes {6}0 ready in ready · 1 lost in /m);
    const [state] = runFiles(home.runs);
    expect(state?.status.group?.nodes[1]).toMatchObject({ node_rank: 1, verdict: 'failed', lost: true });
    expect(state?.status.after_ready_failure?.message).toMatch(/^node 1 stopped reporting in /);
  }, 60_000);
});
