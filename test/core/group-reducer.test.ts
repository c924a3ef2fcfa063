/** Every rule of the group reducer, on a fake clock (the reducer takes the time as an argument). */
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/events.js';
import { GROUP_SETTLE_MS, GroupReducer } from '../../src/core/group-reducer.js';
import type { GroupEvent } from '../../src/core/group-types.js';
import type { SessionEvent } from '../../src/core/session.js';
import type { Cause, Stage, VerdictKind } from '../../src/core/vocabulary.js';

function verdict(kind: VerdictKind, stage: Stage, extra: Partial<Verdict> = {}): Verdict {
  return { verdict: kind, stage, at: 0, elapsedMs: 0, reason: kind, evidence: [], symptoms: [], ...extra };
}
const failed = (cause: Cause, stage: Stage = 'load_weights'): SessionEvent => ({ type: 'verdict', verdict: verdict('failed', stage, { cause, message: `${cause} here`, rule: `test/${cause}` }) });
const stage = (s: Stage, at = 0): SessionEvent => ({ type: 'stage', stage: s, from: 'none', at, line: { lineNo: 1, text: s, at }, rule: 'test/marker', reentered: false });
const ready: SessionEvent = { type: 'verdict', verdict: verdict('ready', 'ready') };
const stalled = (s: Stage): SessionEvent => ({ type: 'verdict', verdict: verdict('stalled', s, { silentMs: 60_000 }) });

function group(size = 2, extra: Partial<ConstructorParameters<typeof GroupReducer>[0]> = {}): GroupReducer {
  return new GroupReducer({ nodes: Array.from({ length: size }, (_, node) => ({ node, kind: 'log' as const })), ...extra });
}
const verdictOf = (events: GroupEvent[]) => events.find((e) => e.type === 'group-verdict')?.verdict;

describe('GroupReducer: FAILED', () => {
  it('fails at once when a node fails with a specific cause, naming that node', () => {
    const g = group();
    g.push(0, [stage('load_weights')], 0);
    const out = g.push(1, [stage('load_weights'), failed('gpu_oom')], 10);
    expect(verdictOf(out)).toMatchObject({ verdict: 'failed', node: 1, stage: 'load_weights' });
    expect(g.verdict?.detail?.cause).toBe('gpu_oom');
  });

  it('a specific cause beats an earlier NCCL timeout on another node; the timeout is set aside with its node', () => {
    const g = group();
    expect(verdictOf(g.push(0, [failed('nccl_timeout')], 0))).toBeUndefined();
    const out = g.push(1, [failed('gpu_oom')], 1_000);
    expect(verdictOf(out)).toMatchObject({ verdict: 'failed', node: 1 });
    expect(g.verdict?.setAside).toEqual([{ node: 0, verdict: expect.objectContaining({ cause: 'nccl_timeout' }) }]);
  });

  it('a peer symptom alone decides once the settle window has passed', () => {
    const g = group();
    g.push(1, [stage('load_weights')], 0);
    g.push(0, [failed('distributed_error')], 0);
    expect(g.nextDeadline).toBe(GROUP_SETTLE_MS);
    expect(verdictOf(g.tick(GROUP_SETTLE_MS - 1))).toBeUndefined();
    expect(verdictOf(g.tick(GROUP_SETTLE_MS))).toMatchObject({ verdict: 'failed', node: 0 });
  });

  it('among symptoms of equal strength the earliest arrival wins, then the lowest rank', () => {
    const early = group(3);
    early.push(2, [failed('nccl_timeout')], 0);
    early.push(1, [failed('distributed_error')], 500);
    early.push(0, [failed('nccl_timeout')], 600);
    expect(early.verdict).toMatchObject({ node: 2 });
    const tie = group(2);
    tie.push(1, [failed('nccl_timeout')], 0);
    tie.push(0, [failed('nccl_timeout')], 0);
    expect(tie.verdict).toMatchObject({ node: 0 });
    expect(tie.verdict?.setAside.map((s) => s.node)).toEqual([1]);
  });

  it('a symptom beats a log that names no cause at all', () => {
    const g = group();
    g.push(0, [failed('unknown')], 0);
    g.push(1, [failed('nccl_timeout')], 100);
    expect(g.verdict).toMatchObject({ node: 1 });
  });

  it('a node whose process died fails the group at once, naming it over an earlier symptom elsewhere', () => {
    const g = group();
    g.push(0, [failed('nccl_timeout')], 0);
    const out = g.lost(1, verdict('failed', 'load_weights', { cause: 'host_oom', rule: 'process/sigkill' }), 100);
    expect(out.map((e) => e.type)).toContain('node-lost');
    expect(verdictOf(out)).toMatchObject({ verdict: 'failed', node: 1 });
    expect(g.verdict?.nodes.find((n) => n.node === 1)?.lost).toBe(true);
    expect(g.verdict?.setAside.map((s) => s.node)).toEqual([0]);
  });

  it('a remote node that misses three heartbeat intervals is lost: "node N stopped reporting in <stage>"', () => {
    const g = new GroupReducer({ nodes: [{ node: 0, kind: 'log' }, { node: 1, kind: 'remote' }], heartbeatIntervalMs: 1_000 });
    g.push(0, [stage('load_weights')], 0);
    g.push(1, [stage('kv_cache')], 0);
    g.heartbeat(1, 1_000);
    expect(verdictOf(g.tick(3_999))).toBeUndefined();
    const out = g.tick(4_000);
    expect(verdictOf(out)).toMatchObject({ verdict: 'failed', node: 1, stage: 'kv_cache' });
    expect(g.verdict?.detail?.message).toBe('node 1 stopped reporting in kv_cache');
  });

  it('a local log node is never lost to silence (its stage budget judges that)', () => {
    const g = group(2, { heartbeatIntervalMs: 1_000 });
    g.push(0, [stage('load_weights')], 0);
    g.push(1, [stage('load_weights')], 0);
    expect(g.tick(60_000)).toEqual([]);
    expect(g.verdict).toBeUndefined();
  });

  it('a restart on a node forgets its earlier failure before the group decided', () => {
    const g = group();
    g.push(0, [failed('nccl_timeout')], 0);
    g.push(0, [{ type: 'restart', at: 10, line: { lineNo: 9, text: 'launch', at: 10 }, rule: 'test/launch' }], 10);
    expect(verdictOf(g.tick(GROUP_SETTLE_MS * 2))).toBeUndefined();
  });
});

describe('GroupReducer: STALLED', () => {
  it('names the node furthest behind and where, and which node exceeded its budget', () => {
    const g = group(3);
    g.push(0, [stage('cuda_graph')], 0);
    g.push(1, [stage('load_weights')], 0);
    g.push(2, [stage('cuda_graph')], 0);
    const out = g.push(0, [stalled('cuda_graph')], 100);
    expect(verdictOf(out)).toMatchObject({ verdict: 'stalled', node: 1, stage: 'load_weights', stalledNode: 0 });
    expect(g.verdict?.reason).toContain('node 1 is furthest behind');
  });

  it('a node that never joined is the furthest behind', () => {
    const g = group(3);
    g.push(0, [stage('load_weights')], 0);
    g.push(1, [stalled('load_weights')], 0);
    expect(g.verdict).toMatchObject({ verdict: 'stalled', node: 2, stage: 'none' });
    expect(g.verdict?.reason).toContain('has not joined');
  });
});

describe('GroupReducer: READY', () => {
  it('is ready when the head is ready and every expected node has joined with no failure', () => {
    const g = group(2);
    g.push(1, [stage('cuda_graph')], 0);
    expect(verdictOf(g.push(0, [stage('warmup'), ready], 10))).toMatchObject({ verdict: 'ready', node: 0, stage: 'ready' });
  });

  it('a follower ready line is not the group ready', () => {
    const g = group(2);
    g.push(0, [stage('cuda_graph')], 0);
    expect(verdictOf(g.push(1, [ready], 10))).toBeUndefined();
  });

  it('waits, saying so once, while an expected node has not joined', () => {
    const g = group(1, { expected: { size: 2, from: 'option' } });
    const out = g.push(0, [ready], 0);
    expect(out.filter((e) => e.type === 'waiting')).toEqual([{ type: 'waiting', at: 0, missing: [1] }]);
    expect(g.push(0, [], 5).some((e) => e.type === 'waiting')).toBe(false);
    expect(verdictOf(g.push(1, [stage('cuda_graph')], 10))).toMatchObject({ verdict: 'ready' });
  });

  it('is not ready while a symptom on a follower waits for its settle window', () => {
    const g = group(3);
    g.push(2, [stage('cuda_graph')], 0);
    g.push(1, [failed('nccl_timeout')], 0);
    expect(verdictOf(g.push(0, [ready], 10))).toBeUndefined();
    expect(verdictOf(g.tick(GROUP_SETTLE_MS))).toMatchObject({ verdict: 'failed', node: 1 });
  });

  it('after ready a follower is judged by its process, not its silence: a stall is ignored, a death is an after-ready failure', () => {
    const g = group(2);
    g.push(1, [stage('cuda_graph')], 0);
    g.push(0, [ready], 10);
    expect(g.push(1, [stalled('cuda_graph')], 100_000).filter((e) => e.type !== 'node')).toEqual([]);
    const out = g.lost(1, verdict('failed', 'cuda_graph', { cause: 'host_oom' }), 200_000);
    expect(out.filter((e) => e.type === 'after-ready-failure')).toEqual([expect.objectContaining({ node: 1 })]);
    expect(g.verdict?.verdict).toBe('ready');
  });

  it('after ready a remote follower that stops reporting is an after-ready failure, not a change of verdict', () => {
    const g = new GroupReducer({ nodes: [{ node: 0, kind: 'log' }, { node: 1, kind: 'remote' }], heartbeatIntervalMs: 1_000 });
    g.push(1, [stage('cuda_graph')], 0);
    g.push(0, [ready], 10);
    g.heartbeat(1, 2_000);
    expect(g.tick(4_999)).toEqual([]);
    const out = g.tick(5_000);
    expect(out.find((e) => e.type === 'after-ready-failure')).toMatchObject({ node: 1, verdict: { message: 'node 1 stopped reporting in cuda_graph' } });
    expect(g.verdict?.verdict).toBe('ready');
    expect(g.tick(60_000)).toEqual([]);
  });

  it('a follower log failure after ready is an after-ready failure of the group', () => {
    const g = group(2);
    g.push(1, [stage('cuda_graph')], 0);
    g.push(0, [ready], 10);
    const out = g.push(1, [failed('gpu_fault', 'cuda_graph')], 20);
    expect(out.find((e) => e.type === 'after-ready-failure')).toMatchObject({ node: 1, verdict: { cause: 'gpu_fault' } });
  });
});

describe('GroupReducer: size and end', () => {
  it('takes the size from the log over the nodes given, and --group-size over the log', () => {
    const g = group(2);
    expect(g.learnSize(3, 0)).toEqual([{ type: 'size', at: 0, expected: 3, from: 'log' }]);
    expect(g.expectedSize).toBe(3);
    const opt = group(2, { expected: { size: 2, from: 'option' } });
    expect(opt.learnSize(4, 0)).toEqual([]);
    const env = group(2, { expected: { size: 5, from: 'env' } });
    env.learnSize(2, 0);
    expect(env.expectedSize).toBe(2);
  });

  it('ends incomplete, naming the node furthest behind, when the inputs end with no verdict', () => {
    const g = group(2);
    g.push(0, [stage('cuda_graph')], 0);
    g.push(1, [stage('load_weights')], 0);
    expect(verdictOf(g.end(10))).toMatchObject({ verdict: 'incomplete', node: 1, stage: 'load_weights' });
  });

  it('tags every node event with its node and says when a node joins', () => {
    const g = group(2);
    const out = g.push(1, [stage('launch', 5)], 5);
    expect(out).toEqual([
      { type: 'joined', node: 1, at: 5 },
      { type: 'node', node: 1, at: 5, event: stage('launch', 5) },
    ]);
  });
});

describe('GroupReducer: nodes that never join (issue 25 items 6 and 7)', () => {
  const head = (extra: Partial<ConstructorParameters<typeof GroupReducer>[0]> = {}): GroupReducer =>
    new GroupReducer({ nodes: [{ node: 0, kind: 'log' }], expected: { size: 2, from: 'option' }, heartbeatIntervalMs: 1_000, ...extra });

  it('a head ready and waiting: node 1 not joined within the join budget makes the group STALLED naming node 1; not before', () => {
    const g = head({ joinBudgetMs: 60_000 });
    g.push(0, [stage('launch'), ready], 100);
    expect(g.nextDeadline).toBe(60_000);
    expect(verdictOf(g.tick(59_999))).toBeUndefined();
    const out = verdictOf(g.tick(60_000));
    expect(out).toMatchObject({ verdict: 'stalled', node: 1, stage: 'none', stalledNode: 1, nodes: [{ node: 0, verdict: 'ready' }, { node: 1, joined: false }] });
    expect(out?.reason).toMatch(/^the head is ready but node 1 has not joined within its join budget of 1m/);
  });

  it('a node that joined in time is not held to the join budget; --timeout still ends a group that has no verdict', () => {
    const g = head({ joinBudgetMs: 60_000, timeoutMs: 90_000 });
    g.push(0, [stage('launch')], 0);
    g.heartbeat(1, 1_000);
    for (let t = 2_000; t < 90_000; t += 500) expect(verdictOf(g.heartbeat(1, t))).toBeUndefined();
    expect(verdictOf(g.tick(90_000))).toMatchObject({ verdict: 'stalled', reason: expect.stringMatching(/^no group verdict within --timeout 1m30s/) });
  });

  it('refuses a rank beyond a known size; takes any rank when the size is only the nodes seen', () => {
    expect(head().rankRefusal(1)).toBeUndefined();
    expect(head().rankRefusal(2)).toMatch(/^node 2 is out of range: this group has 2 nodes \(ranks 0-1, size from --group-size\)/);
    expect(group(2).rankRefusal(5)).toBeUndefined();
  });
});
