/**
 * `spinup watch` on the nodes of one start: the two real node logs of sgl-project/sglang#3398
 * as two files, as an srun --label merge (a file and a pipe), through cmd: sources; and two real
 * processes replaying those logs, one of them killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lanesFromEvents, type WireEvent } from '../../src/report/lane-builder.js';
import { repoRoot, runMain } from '../helpers/run-main.js';
import { assertBuilt, killAll, spawnPipeline, spawnWatch, type JsonEvent } from '../helpers/watch-child.js';

const NODE0 = 'fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log';
const NODE1 = 'fixtures/sglang/19-multinode-h20-node1-hang-after-nccl-init.log';
/** The head node of a 2-node start that came up (sgl-project/sglang#4161); its worker's log was not captured. */
const HEAD_READY = 'fixtures/sglang/30-multinode-2x8-h800-dsr1-tp16-ready-slow-cudagraph.log';
const HEAD_3254 = 'fixtures/sglang/37-multinode-head-gloo-peer-closed-during-cudagraph.log';
const WORKER_3254 = 'fixtures/sglang/38-multinode-worker-nccl-watchdog-timeout.log';
const REPLAY = join(repoRoot, 'test/fixture-servers/replay-log.mjs');
/** Real processes on a shared 2-core machine: bounded, but generous. */
const LIVE_MS = 20_000;

const scratch = (): string => mkdtempSync(join(tmpdir(), 'spinup-group-'));
const jsonLines = (text: string): JsonEvent[] => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as JsonEvent);
const verdictOf = (text: string): JsonEvent => jsonLines(text).find((e) => e.type === 'group_verdict')!;

/** The verdict as a comparison sees it: the group's word, the node it names, and what that node said. */
function gist(verdict: JsonEvent): Record<string, unknown> {
  const { verdict: kind, stage, cause, rule, node, evidence } = verdict as Record<string, unknown>;
  return { kind, stage, cause, rule, node, evidence };
}

/**
 * The two logs as `srun --label` prints them on one stream: each line prefixed with its node's
 * label, the nodes interleaved by their timestamps (a line without one goes with the line before).
 */
function srunMerge(): string {
  const stamp = /^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/;
  const keyed = [NODE0, NODE1].map((file, node) => {
    let key = '';
    return readFileSync(join(repoRoot, file), 'utf8').replace(/\n$/, '').split('\n').map((text) => {
      key = stamp.exec(text)?.[1] ?? key;
      return { key, line: `${node}: ${text}\n` };
    });
  });
  const merged: string[] = [];
  const [a, b] = keyed as [{ key: string; line: string }[], { key: string; line: string }[]];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) merged.push(j >= b.length || (i < a.length && a[i]!.key <= b[j]!.key) ? a[i++]!.line : b[j++]!.line);
  return merged.join('');
}

describe('spinup watch FILE FILE (the real node logs of sglang#3398 and #3254)', () => {
  it('gives one verdict that names the node, every event naming its node; ranks come from the logs, not the order', async () => {
    const run = await runMain(['watch', '--no-follow', NODE1, NODE0]);
    expect(run.code).toBe(2);
    // Node 0 ran out of its distributed_init budget first; node 1 (no stage marker in its excerpt) is furthest behind.
    expect(run.stdout).toMatch(/^STALLED sglang {2}node 1 of 2, in stage none$/m);
    expect(run.stdout).toMatch(/^ {2}group +node 0 exceeded its budget in stage distributed_init; node 1 is furthest behind, in stage none; the rows below are node 0's$/m);
    expect(run.stdout).toMatch(/^ {2}nodes +0 stalled in distributed_init · 1 incomplete in none; expected 2 \(from the log\)$/m);
    expect(run.stderr).toContain(`node 1 = ${NODE1} (its log says so)`);
    expect(run.stderr).toMatch(/^\[ +\S+\] node 0 stage distributed_init {2}line 11$/m);
  });

  it('--json: every event carries its node; the verdict names the node and the group', async () => {
    const run = await runMain(['watch', '--no-follow', '--json', NODE0, NODE1]);
    const events = jsonLines(run.stdout);
    expect(events.filter((e) => ['stage', 'family', 'verdict'].includes(e.type)).every((e) => typeof e.node === 'number')).toBe(true);
    expect(events.filter((e) => e.type === 'verdict').map((e) => [e.node, e.verdict])).toEqual([[1, 'incomplete'], [0, 'stalled']]);
    expect(events.filter((e) => e.type === 'group_verdict')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('group_verdict');
    expect(verdictOf(run.stdout)).toMatchObject({ verdict: 'stalled', stage: 'none', node: 1, group: { expected: 2, expected_from: 'log', head: 0, stalled_node: 0 } });
  });

  it('the --json events draw one lane per node in the report, each with its own verdict', async () => {
    const run = await runMain(['watch', '--no-follow', '--json', HEAD_3254, WORKER_3254]);
    const lanes = lanesFromEvents(jsonLines(run.stdout) as unknown as WireEvent[]);
    expect(lanes.map((l) => [l.node, l.verdict?.verdict, l.stages.map((s) => s.stage)])).toEqual([
      [0, 'failed', ['load_weights', 'kv_cache', 'cuda_graph']],
      [1, 'failed', []],
    ]);
  });

  it('an srun --label merge of the same logs gives the same verdict, from a file and from a pipe', async () => {
    const dir = scratch();
    const merged = join(dir, 'srun.log');
    writeFileSync(merged, srunMerge());
    const files = verdictOf((await runMain(['watch', '--no-follow', '--json', NODE0, NODE1])).stdout);
    const fromFile = await runMain(['watch', '--no-follow', '--json', '--srun', merged]);
    expect(fromFile.code).toBe(2);
    expect(gist(verdictOf(fromFile.stdout))).toEqual(gist(files));
    assertBuilt();
    const pipe = spawnPipeline(`cat '${merged}' | node "$BIN" watch --no-history --json --srun -`, { cwd: repoRoot, stateDir: dir });
    const exit = await pipe.finished(LIVE_MS);
    expect(exit.code).toBe(2);
    expect(gist(verdictOf(pipe.stdout))).toEqual(gist(files));
  });

  it("srun's own report of a killed task fails the group on that node", async () => {
    const dir = scratch();
    const merged = join(dir, 'srun.log');
    // Node 0 up to its distributed init (before its own failure), node 1 whole, then srun says task 1 was killed.
    const head = readFileSync(join(repoRoot, NODE0), 'utf8').split('\n').slice(0, 20).map((l) => `0: ${l}\n`).join('');
    const follower = readFileSync(join(repoRoot, NODE1), 'utf8').replace(/\n$/, '').split('\n').map((l) => `1: ${l}\n`).join('');
    writeFileSync(merged, `${head}${follower}srun: error: host-b: task 1: Killed\n`);
    const run = await runMain(['watch', '--no-follow', '--json', '--srun', merged]);
    expect(run.code).toBe(1);
    expect(verdictOf(run.stdout)).toMatchObject({ verdict: 'failed', node: 1, cause: 'host_oom', rule: 'process/sigkill' });
  });

  it('--node R=cmd:COMMAND reads a node from a command; --node ranks are taken as given', async () => {
    const run = await runMain(['watch', '--no-follow', '--json', '--node', `0=${NODE0}`, '--node', `1=cmd:cat ${NODE1}`]);
    const files = verdictOf((await runMain(['watch', '--no-follow', '--json', NODE0, NODE1])).stdout);
    expect(run.code).toBe(2);
    expect(gist(verdictOf(run.stdout))).toEqual(gist(files));
  });

  it.for([
    { args: ['--node', `0=${NODE0}`, NODE1], error: /not both/ },
    { args: ['--node', `0=${NODE0}`, '--node', `0=${NODE1}`], error: /node 0 is given twice/ },
    { args: ['--node', 'zero=a.log'], error: /--node wants RANK=SOURCE/ },
    { args: ['--srun', NODE0, NODE1], error: /--srun reads one SOURCE/ },
    { args: ['--group-size', 'two', NODE0, NODE1], error: /--group-size wants a number/ },
    { args: ['-', '-'], error: /only one node can read stdin/ },
    { args: ['--node', '1=cmd:'], error: /cmd: needs a command/ },
    // A rank beyond the group's size would leave the rank below it waiting forever (issue 25 item 7).
    { args: ['--group-size', '2', '--node', `0=${NODE0}`, '--node', `2=${NODE1}`], error: /node 2 is out of range: this group has 2 nodes \(ranks 0-1, size from --group-size\)/ },
    // A head for pushed nodes follows its logs; beyond loopback it needs the group's token.
    { args: ['--listen', '127.0.0.1:0', NODE0, NODE1], error: /--listen with a group follows its logs/ },
    { args: ['--listen', '0.0.0.0:0', '--group-size', '2', NODE0], error: /needs a shared token/ },
    // The join budget is a head's, for pushed nodes (issue 25 item 6).
    { args: ['--join-budget', '1m', NODE0, NODE1], error: /--join-budget is for a head that takes pushed nodes \(--listen\)/ },
  ])('usage error: $args', async ({ args, error }) => {
    const run = await runMain(['watch', '--no-follow', ...args]);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(error);
  });

  it('a missing node log with --no-follow is exit 66, naming it', async () => {
    const run = await runMain(['watch', '--no-follow', NODE0, 'no-such-node1.log']);
    expect(run.code).toBe(66);
    expect(run.stderr).toContain('no-such-node1.log: no such file');
  });

  it('READY needs every expected node: a ready head alone, with --group-size 2, waits and ends incomplete naming node 1', async () => {
    const run = await runMain(['watch', '--no-follow', '--group-size', '2', HEAD_READY]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/the head is ready; waiting for node 1 to join/);
    expect(run.stdout).toMatch(/^INCOMPLETE sglang {2}group of 2: .*node 1 furthest behind, in stage none/m);
  });

  it('READY when the head is ready and the follower joined with no failure (two logs of different starts, as a mechanism test)', async () => {
    // Node 1 prints only the NCCL set-up lines of a real follower log; nothing in them fails.
    const run = await runMain(['watch', '--no-follow', '--json', '--node', `0=${HEAD_READY}`, '--node', `1=cmd:head -n 20 ${NODE1}`]);
    expect(run.code).toBe(0);
    expect(verdictOf(run.stdout)).toMatchObject({ verdict: 'ready', node: 0, group: { nodes: [expect.objectContaining({ node: 0, verdict: 'ready' }), expect.objectContaining({ node: 1, joined: true })] } });
  });

  it('spinup replay checks the group fixture', async () => {
    const run = await runMain(['replay', 'fixtures/sglang/18-19-multinode-h20-2nodes-gloo-rendezvous-timeout.group']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/stalled none node 1\n1 passed, 0 failed\n$/);
  });
});

describe('watch a live group of real processes', () => {
  const servers: ChildProcess[] = [];
  beforeAll(() => assertBuilt());
  afterEach(async () => {
    for (const server of servers.splice(0)) server.kill('SIGKILL');
    await killAll();
  });

  it('a follower killed with SIGKILL mid-start fails the group, naming node 1, though its log only went quiet', async () => {
    const dir = scratch();
    // Node 0: a replayed server writing its log to a file, in real time (34 s to its own failure).
    const head = join(dir, 'node0.log');
    const server = spawn(process.execPath, [REPLAY, '--log', join(repoRoot, NODE0), '--speed', '1', '--max-gap-ms', '60000', '--then', 'hang'], { stdio: ['ignore', openSync(head, 'w'), 'ignore'] });
    servers.push(server);
    // Node 1: a replayed follower that prints its lines and stays up, run by spinup itself (cmd:), writing its pid.
    const pidFile = join(dir, 'node1.pid');
    const follower = `cmd:echo $$ > '${pidFile}'; exec node '${REPLAY}' --log '${join(repoRoot, NODE1)}' --then hang`;
    const watch = spawnWatch(['--json', '--node', `0=${head}`, '--node', `1=${follower}`], { cwd: repoRoot, stateDir: dir });
    await watch.untilEvent('node 1 joined', (e) => e.type === 'node_joined' && e.node === 1);
    await watch.untilEvent('node 0 launched', (e) => e.type === 'stage' && e.node === 0 && e.stage === 'launch');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    process.kill(pid, 'SIGKILL');
    const exit = await watch.finished(LIVE_MS);
    expect(exit.code).toBe(1);
    const verdict = verdictOf(watch.stdout);
    expect(verdict).toMatchObject({ verdict: 'failed', node: 1, cause: 'host_oom', rule: 'process/sigkill' });
    expect(jsonLines(watch.stdout).find((e) => e.type === 'node_lost')).toMatchObject({ node: 1 });
    // Node 0's own failure (34 s into its log) had not come yet: node 1's death alone decided.
    expect((verdict.group as { set_aside: unknown[] }).set_aside).toEqual([]);
  }, 40_000);

  it('watch FILE FILE follows both logs as two real servers write them: one verdict, naming node 0', async () => {
    const dir = scratch();
    const logs = [join(dir, 'a.log'), join(dir, 'b.log')];
    const watch = spawnWatch(['--json', ...logs], { cwd: repoRoot, stateDir: dir });
    // Written only once watch follows them: lines already there would be an earlier run's news.
    for (const node of [0, 1]) await watch.untilEvent(`node ${node} waiting`, (e) => e.type === 'notice' && e.notice === 'waiting' && e.node === node);
    for (const [i, fixture] of [NODE0, NODE1].entries()) {
      servers.push(spawn(process.execPath, [REPLAY, '--log', join(repoRoot, fixture), '--speed', '100', '--max-gap-ms', '200', '--then', 'hang'], { stdio: ['ignore', openSync(logs[i]!, 'w'), 'ignore'] }));
    }
    expect((await watch.finished(LIVE_MS)).code).toBe(1);
    const events = jsonLines(watch.stdout);
    expect(verdictOf(watch.stdout)).toMatchObject({ verdict: 'failed', node: 0, cause: 'distributed_error', group: { expected: 2, expected_from: 'log' } });
    // The files appeared after watch started: ranks came from the order, the size from node 0's own lines.
    expect(events.filter((e) => e.type === 'node_joined').map((e) => e.node).sort()).toEqual([0, 1]);
  }, 40_000);

  it('--timeout ends a group with no verdict as stalled (exit 2); Ctrl-C as interrupted (exit 130)', async () => {
    const dir = scratch();
    const nodes = [join(dir, 'node0.log'), join(dir, 'node1.log')];
    const timed = spawnWatch(['--timeout', '1s', ...nodes], { cwd: repoRoot, stateDir: dir });
    expect((await timed.finished(LIVE_MS)).code).toBe(2);
    expect(timed.stderr).toContain('timed out after 1s with no group verdict');
    const interrupted = spawnWatch(nodes, { cwd: repoRoot, stateDir: dir });
    await interrupted.untilStderr(`node 1: waiting for ${nodes[1]} to appear`);
    interrupted.child.kill('SIGINT');
    expect((await interrupted.finished(LIVE_MS)).code).toBe(130);
    expect(interrupted.stderr).toContain('interrupted before the group had a verdict');
  }, 40_000);

  it('a cmd: reader that exits non-zero is started again with backoff, and its node goes on', async () => {
    const dir = scratch();
    const marker = join(dir, 'dropped-once');
    const reader = `cmd:if [ -e '${marker}' ]; then cat '${join(repoRoot, HEAD_3254)}'; exec sleep 60; else touch '${marker}'; exit 255; fi`;
    const watch = spawnWatch(['--json', '--node', `0=${reader}`, '--node', '1=cmd:exec sleep 60'], { cwd: repoRoot, stateDir: dir });
    const exit = await watch.finished(LIVE_MS);
    expect(exit.code).toBe(1);
    const restart = jsonLines(watch.stdout).find((e) => e.type === 'notice' && e.notice === 'command-restart');
    expect(restart).toMatchObject({ node: 0, detail: expect.stringContaining('exited with code 255; starting it again in 1s') });
    // Only the second run printed anything: the verdict comes from it.
    expect(verdictOf(watch.stdout)).toMatchObject({ verdict: 'failed', node: 0, cause: 'distributed_error', rule: 'common/gloo-peer-closed' });
  }, 40_000);
});

// Issue 25, item 18: one log and a group's nodes open their sources the same way (io/open-source.ts).
describe('the nodes of a group as .gz files (logrotate compressed them) read as the plain files do', () => {
  const gzipped = (file: string): string => {
    const path = join(scratch(), `${file.split('/').pop()!}.gz`);
    writeFileSync(path, gzipSync(readFileSync(join(repoRoot, file))));
    return path;
  };

  // Read to the end: followed, a log whose start already ended waits 30 s for a new run, .gz or not.
  it('the same verdict, cause, node and root-cause line for HEAD.gz WORKER.gz as for the plain logs', async () => {
    const plain = await runMain(['watch', '--json', '--no-follow', HEAD_3254, WORKER_3254]);
    const packed = await runMain(['watch', '--json', '--no-follow', gzipped(HEAD_3254), gzipped(WORKER_3254)]);
    // A FAILED group with a cause: gzip bytes read as text used to end INCOMPLETE.
    expect(verdictOf(plain.stdout)).toMatchObject({ verdict: 'failed' });
    expect(gist(verdictOf(packed.stdout))).toEqual(gist(verdictOf(plain.stdout)));
    expect(packed.code).toBe(plain.code);
    expect(jsonLines(packed.stdout).filter((e) => e.type === 'notice' && e.notice === 'decoded').map((e) => e.node)).toEqual(expect.arrayContaining([0, 1]));
  });

  it('ranks come from the .gz logs too, not from the order they are given in', async () => {
    const plain = await runMain(['watch', '--json', '--no-follow', NODE1, NODE0]);
    const packed = await runMain(['watch', '--json', '--no-follow', gzipped(NODE1), gzipped(NODE0)]);
    expect(gist(verdictOf(packed.stdout))).toEqual(gist(verdictOf(plain.stdout)));
    const { node, group } = verdictOf(plain.stdout) as { node?: number; group?: { nodes: unknown[] } };
    expect(verdictOf(packed.stdout)).toMatchObject({ node, group: { nodes: group?.nodes } });
  });
});

