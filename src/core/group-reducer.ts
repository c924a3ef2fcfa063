/**
 * One verdict for a multi-node start, from its nodes' own sessions. Pure like the classifier:
 * every method takes the group time (`now`, ms) and returns the events it gives; nothing here
 * reads a clock, so a replay, a live watch and a test with a fake clock behave alike.
 *
 * FAILED as soon as any node fails (its log, its process, or it stops reporting), with the root
 * cause chosen across nodes (core/group-root-cause.ts); a peer symptom waits `settleMs` for a
 * stronger cause from another node first. STALLED when a node exceeds its stage budget, naming
 * the node furthest behind. READY when the head is ready, every expected node has joined, and
 * none failed; after that, followers are judged by their process and heartbeats, not by silence.
 */
import type { Verdict } from './events.js';
import { failureReason, rankFailures, strengthOf, type FailureOrigin, type NodeFailure } from './group-root-cause.js';
import type { GroupEvent, GroupVerdict, NodeKind, NodeSummary, SizeSource } from './group-types.js';
import { formatDuration } from './duration.js';
import { afterReadyVerdict, lostVerdict } from './group-verdicts.js';
import type { SessionEvent } from './session.js';
import { stageIndex, type Stage } from './vocabulary.js';

/** Where a group's size came from, in a refusal's words. */
const SIZE_WORDS: Record<SizeSource, string> = { option: '--group-size', log: 'the logs', env: 'the environment', command: "the server's --nnodes", nodes: 'the nodes given' };

/** How long a peer symptom waits for a stronger cause from another node (lines in flight, a slower pipe). */
export const GROUP_SETTLE_MS = 3_000;
/** A remote node that misses this many heartbeat intervals is lost. */
export const MISSED_HEARTBEATS = 3;

export interface GroupOptions {
  /** The nodes known at the start (more may join: srun labels, pushed events). */
  nodes: readonly { node: number; kind: NodeKind }[];
  /** Expected group size; omitted = the nodes given, until a log says otherwise. */
  expected?: { size: number; from: SizeSource };
  /** Rank of the head node (default 0): the one that prints ready. */
  head?: number;
  heartbeatIntervalMs?: number;
  settleMs?: number;
  /**
   * A head that waits for nodes it cannot see start (pushed followers): an expected rank no
   * follower has pushed for by this group time (counted from the head's start, time 0) makes the
   * group STALLED, naming it. Nodes read locally are judged by their own stage budgets. Omitted: none.
   */
  joinBudgetMs?: number;
  /** The user's --timeout, for a head that has no other clock: past it with no verdict, the group is STALLED. */
  timeoutMs?: number;
}

/** A pushed follower's default join budget: time for its pod to be scheduled, pull its image and start spinup. */
export const DEFAULT_JOIN_BUDGET_MS = 10 * 60_000;

interface NodeState {
  node: number;
  kind: NodeKind;
  joinedAt?: number;
  lastSeen?: number;
  stage: Stage;
  verdict?: Verdict;
  failure?: NodeFailure;
  ended: boolean;
  afterReadyReported: boolean;
}

export class GroupReducer {
  private readonly nodes = new Map<number, NodeState>();
  private readonly head: number;
  private expected: { size: number; from: SizeSource };
  private startedAt: number | undefined;
  private decided: GroupVerdict | undefined;
  private waitingSaid = false;

  constructor(private readonly options: GroupOptions) {
    this.head = options.head ?? 0;
    this.expected = options.expected ?? { size: 1, from: 'nodes' };
    for (const { node, kind } of options.nodes) this.addNode(node, kind);
  }

  get verdict(): GroupVerdict | undefined {
    return this.decided;
  }

  get expectedSize(): number {
    return this.expected.size;
  }

  /**
   * Why a node may not join (a rank beyond a known group size), or undefined. A group whose size
   * is only the nodes seen so far takes any rank.
   */
  rankRefusal(node: number): string | undefined {
    if (this.expected.from === 'nodes' || node < this.expected.size) return undefined;
    const size = this.expected.size;
    return `node ${node} is out of range: this group has ${size} node${size === 1 ? '' : 's'} (ranks 0-${size - 1}, size from ${SIZE_WORDS[this.expected.from]}); check --node-rank`;
  }

  /**
   * The next time at which time alone can change the verdict (a settle window closing, a remote
   * node's heartbeat running out), so a replay can tick exactly then.
   */
  get nextDeadline(): number | undefined {
    if (this.decided && this.decided.verdict !== 'ready') return undefined;
    const deadlines: number[] = [];
    const failures = [...this.nodes.values()].flatMap((s) => (s.failure ? [s.failure.arrivedAt] : []));
    if (!this.decided && failures.length > 0) deadlines.push(Math.min(...failures) + (this.options.settleMs ?? GROUP_SETTLE_MS));
    const interval = this.options.heartbeatIntervalMs;
    if (interval !== undefined) {
      for (const s of this.nodes.values()) if (s.kind === 'remote' && s.lastSeen !== undefined && !s.failure) deadlines.push(s.lastSeen + MISSED_HEARTBEATS * interval);
    }
    if (!this.decided) {
      const { joinBudgetMs, timeoutMs } = this.options;
      if (joinBudgetMs !== undefined && this.notJoined().length > 0) deadlines.push(joinBudgetMs);
      if (timeoutMs !== undefined) deadlines.push(timeoutMs);
    }
    return deadlines.length > 0 ? Math.min(...deadlines) : undefined;
  }

  /** Where every node stands now (for a status API while the group has no verdict yet). */
  standing(): { nodes: NodeSummary[]; head: number; expected: number } {
    return { nodes: this.summaries(), head: this.head, expected: this.expected.size };
  }

  /** A node the group did not know at the start (a new srun label, a node that pushes). */
  addNode(node: number, kind: NodeKind): void {
    if (this.nodes.has(node)) return;
    this.nodes.set(node, { node, kind, stage: 'none', ended: false, afterReadyReported: false });
    // With no size given, the group is the nodes it has seen.
    if (this.expected.from === 'nodes') this.expected = { size: Math.max(this.expected.size, this.nodes.size), from: 'nodes' };
  }

  /** A log said how many nodes the start has: it beats the environment and the count of nodes given, not `--group-size`. */
  learnSize(size: number, now: number): GroupEvent[] {
    if (this.final || this.expected.from === 'option' || this.expected.from === 'log') return [];
    this.expected = { size, from: 'log' };
    return [{ type: 'size', at: now, expected: size, from: 'log' }, ...this.decide(now)];
  }

  /** A node's session events, as they arrive. */
  push(node: number, events: readonly SessionEvent[], now: number): GroupEvent[] {
    if (this.final) return [];
    const state = this.state(node);
    const out: GroupEvent[] = this.seen(state, now);
    for (const event of events) {
      out.push({ type: 'node', node, at: now, event });
      out.push(...this.apply(state, event, now));
    }
    return [...out, ...this.decide(now)];
  }

  /** A remote node said it is alive. */
  heartbeat(node: number, now: number): GroupEvent[] {
    if (this.final) return [];
    return [...this.seen(this.state(node), now), ...this.decide(now)];
  }

  /** The node's process died (a local command that ended by a signal): `verdict` says how. */
  lost(node: number, verdict: Verdict, now: number): GroupEvent[] {
    if (this.final) return [];
    const state = this.state(node);
    return [{ type: 'node-lost', node, at: now, verdict }, ...this.fail(state, verdict, 'process', now), ...this.decide(now)];
  }

  /** The node's input ended (a closed pipe, the end of a file read to its end). */
  ended(node: number, now: number): GroupEvent[] {
    if (this.final) return [];
    this.state(node).ended = true;
    return this.decide(now);
  }

  /** Time passes: settle windows close, silent remote nodes are lost. */
  tick(now: number): GroupEvent[] {
    if (this.final) return [];
    const out: GroupEvent[] = [];
    const interval = this.options.heartbeatIntervalMs;
    for (const state of this.nodes.values()) {
      if (interval === undefined || state.kind !== 'remote' || state.lastSeen === undefined || state.failure) continue;
      if (now - state.lastSeen < MISSED_HEARTBEATS * interval) continue;
      const verdict = lostVerdict({ node: state.node, stage: state.stage, now, since: state.joinedAt ?? now, silentMs: now - state.lastSeen, intervalMs: interval });
      out.push({ type: 'node-lost', node: state.node, at: now, verdict }, ...this.fail(state, verdict, 'heartbeat', now));
    }
    out.push(...this.decide(now));
    if (!this.decided) out.push(...this.budgets(now));
    return out;
  }

  /** The join budget and --timeout: time alone ends a group that waits for what never comes. */
  private budgets(now: number): GroupEvent[] {
    const { joinBudgetMs, timeoutMs } = this.options;
    const missing = this.notJoined();
    if (joinBudgetMs !== undefined && now >= joinBudgetMs && missing.length > 0) {
      const node = missing[0]!;
      const others = missing.length > 1 ? ` (nor ${missing.slice(1).map((n) => `node ${n}`).join(', ')})` : '';
      const headReady = this.nodes.get(this.head)?.verdict?.verdict === 'ready' ? 'the head is ready but ' : '';
      const reason = `${headReady}node ${node} has not joined within its join budget of ${formatDuration(joinBudgetMs)}${others}: its spinup never pushed to the head (not started, a wrong --group-leader URL, or its pushes refused)`;
      const detail: Verdict = { verdict: 'stalled', stage: 'none', at: now, elapsedMs: now, reason, evidence: [], symptoms: [], silentMs: now, budget: { ms: joinBudgetMs, source: 'override', detail: 'join budget, --join-budget' } };
      return [this.settle({ verdict: 'stalled', node, stage: 'none', reason, detail, stalledNode: node }, now)];
    }
    if (timeoutMs !== undefined && now >= timeoutMs) {
      const behind = this.furthestBehind();
      const where = behind.joined ? `in stage ${behind.stage}` : 'and has not joined';
      const reason = `no group verdict within --timeout ${formatDuration(timeoutMs)}; node ${behind.node} is furthest behind, ${where}`;
      const detail: Verdict = { verdict: 'stalled', stage: behind.stage, at: now, elapsedMs: now, reason, evidence: [], symptoms: [], silentMs: now, budget: { ms: timeoutMs, source: 'override', detail: '--timeout' } };
      return [this.settle({ verdict: 'stalled', node: behind.node, stage: behind.stage, reason, detail }, now)];
    }
    return [];
  }

  /** Expected ranks nothing has spoken for: no local log reads them and no follower pushed for them. */
  private notJoined(): number[] {
    return this.expectedNodes().filter((n) => !this.nodes.has(n));
  }

  /**
   * A node's failure after the group was READY, as a verdict block that names it: the group's own
   * verdict stays READY (the start succeeded); this says which node broke since, and how.
   */
  afterReadyFailure(node: number, verdict: Verdict, now: number): GroupVerdict {
    return {
      verdict: 'failed',
      node,
      stage: 'ready',
      at: now,
      elapsedMs: now - (this.startedAt ?? now),
      reason: `node ${node} failed after the group was READY`,
      detail: verdict,
      setAside: [],
      nodes: this.summaries(),
      head: this.head,
      expected: this.expected.size,
      expectedFrom: this.expected.from,
    };
  }

  /** Every input has ended: the verdict now, incomplete if nothing decided it. */
  end(now: number): GroupEvent[] {
    for (const state of this.nodes.values()) state.ended = true;
    const out = this.decide(now, true);
    if (this.decided) return out;
    const behind = this.furthestBehind();
    return [...out, this.settle({ verdict: 'incomplete', node: behind.node, stage: behind.stage, reason: `the input ended before the group had a verdict (node ${behind.node} was furthest behind)` }, now)];
  }

  /** A verdict that nothing changes any more: failed, stalled, incomplete. Ready still watches followers. */
  private get final(): boolean {
    return this.decided !== undefined && this.decided.verdict !== 'ready';
  }

  private state(node: number): NodeState {
    this.addNode(node, 'log');
    return this.nodes.get(node)!;
  }

  private seen(state: NodeState, now: number): GroupEvent[] {
    this.startedAt ??= now;
    state.lastSeen = now;
    if (state.joinedAt !== undefined) return [];
    state.joinedAt = now;
    return [{ type: 'joined', node: state.node, at: now }];
  }

  private apply(state: NodeState, event: SessionEvent, now: number): GroupEvent[] {
    if (event.type === 'stage') state.stage = event.stage;
    if (event.type === 'restart' && !this.decided) {
      state.verdict = undefined;
      state.failure = undefined;
      state.stage = 'none';
    }
    if (event.type === 'after-ready-failure' && this.decided?.verdict === 'ready') return this.fail(state, afterReadyVerdict(event, now), 'log', now);
    if (event.type !== 'verdict') return [];
    const verdict = event.verdict;
    // After ready a follower's silence says nothing: only its own READY (it takes the group's) and a failure count.
    if (this.decided?.verdict === 'ready' && verdict.verdict !== 'failed' && verdict.verdict !== 'ready') return [];
    state.verdict = verdict;
    state.stage = verdict.stage;
    if (verdict.verdict === 'incomplete') state.ended = true;
    return verdict.verdict === 'failed' ? this.fail(state, verdict, 'log', now) : [];
  }

  private fail(state: NodeState, verdict: Verdict, origin: FailureOrigin, now: number): GroupEvent[] {
    // The log's own cause, when it has one, explains a death better than the death itself.
    if (state.failure && !(state.failure.origin !== 'log' && origin === 'log')) return [];
    state.failure = { node: state.node, verdict, origin, arrivedAt: state.failure?.arrivedAt ?? now };
    state.verdict = verdict;
    if (this.decided?.verdict === 'ready') return this.afterReady(state, verdict, now);
    return [];
  }

  private afterReady(state: NodeState, verdict: Verdict, now: number): GroupEvent[] {
    if (state.afterReadyReported) return [];
    state.afterReadyReported = true;
    return [{ type: 'after-ready-failure', node: state.node, at: now, verdict }];
  }

  private decide(now: number, ending = false): GroupEvent[] {
    if (this.decided) return [];
    const failures = rankFailures([...this.nodes.values()].flatMap((s) => (s.failure ? [s.failure] : [])));
    const best = failures[0];
    if (best) {
      const first = Math.min(...failures.map((f) => f.arrivedAt));
      const settled = strengthOf(best) === 0 || ending || now - first >= (this.options.settleMs ?? GROUP_SETTLE_MS) || this.allSettled();
      if (!settled) return [];
      const reason = failureReason(best, failures.slice(1));
      return [this.settle({ verdict: 'failed', node: best.node, stage: best.verdict.stage, reason, detail: best.verdict, setAside: failures.slice(1) }, now)];
    }
    const stalled = [...this.nodes.values()].find((s) => s.verdict?.verdict === 'stalled');
    if (stalled) return [this.stall(stalled, now)];
    return this.ready(now);
  }

  private stall(stalled: NodeState, now: number): GroupEvent {
    const behind = this.furthestBehind(stalled.node);
    const where = behind.joined ? `in stage ${behind.stage}` : 'and has not joined';
    const reason =
      behind.node === stalled.node
        ? `node ${stalled.node} made no progress in stage ${stalled.stage} for longer than its budget`
        : `node ${stalled.node} exceeded its budget in stage ${stalled.stage}; node ${behind.node} is furthest behind, ${where}`;
    return this.settle({ verdict: 'stalled', node: behind.node, stage: behind.stage, reason, detail: stalled.verdict, stalledNode: stalled.node }, now);
  }

  private ready(now: number): GroupEvent[] {
    const head = this.nodes.get(this.head);
    if (head?.verdict?.verdict !== 'ready') return [];
    const missing = this.expectedNodes().filter((n) => this.nodes.get(n)?.joinedAt === undefined);
    if (missing.length > 0) {
      if (this.waitingSaid) return [];
      this.waitingSaid = true;
      return [{ type: 'waiting', at: now, missing }];
    }
    const others = this.nodes.size - 1;
    const reason = `the head (node ${this.head}) printed its ready line and ${others === 1 ? 'the other node has' : `all ${others} other nodes have`} joined with no failure`;
    return [this.settle({ verdict: 'ready', node: this.head, stage: 'ready', reason, detail: head.verdict }, now)];
  }

  private settle(parts: Omit<GroupVerdict, 'at' | 'elapsedMs' | 'nodes' | 'head' | 'expected' | 'expectedFrom' | 'setAside'> & { setAside?: NodeFailure[] }, now: number): GroupEvent {
    const verdict: GroupVerdict = {
      ...parts,
      at: now,
      elapsedMs: now - (this.startedAt ?? now),
      setAside: (parts.setAside ?? []).map((f) => ({ node: f.node, verdict: f.verdict })),
      nodes: this.summaries(),
      head: this.head,
      expected: this.expected.size,
      expectedFrom: this.expected.from,
    };
    this.decided = verdict;
    return { type: 'group-verdict', verdict };
  }

  /** Expected nodes are ranks 0..size-1; nodes given beyond that still count. */
  private expectedNodes(): number[] {
    const ranks = new Set([...Array.from({ length: this.expected.size }, (_, i) => i), ...this.nodes.keys()]);
    return [...ranks].sort((a, b) => a - b);
  }

  private allSettled(): boolean {
    return this.expectedNodes().every((n) => {
      const state = this.nodes.get(n);
      return state !== undefined && (state.failure !== undefined || state.verdict !== undefined || state.ended);
    });
  }

  /** Not joined first, then the earliest stage; ties go to the node that stalled, then the lowest rank. */
  private furthestBehind(prefer?: number): NodeSummary {
    const all = this.summaries().filter((s) => s.verdict !== 'ready');
    const pool = all.length > 0 ? all : this.summaries();
    return pool.reduce((best, s) => {
      const order = (x: NodeSummary): number[] => [x.joined ? 1 : 0, stageIndex(x.stage), x.node === prefer ? 0 : 1, x.node];
      const [a, b] = [order(s), order(best)];
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? s : best;
      return best;
    });
  }

  private summaries(): NodeSummary[] {
    return this.expectedNodes().map((node) => {
      const state = this.nodes.get(node);
      const summary: NodeSummary = { node, joined: state?.joinedAt !== undefined, stage: state?.stage ?? 'none' };
      if (state?.verdict) summary.verdict = state.verdict.verdict;
      if (state?.failure && state.failure.origin !== 'log') summary.lost = true;
      return summary;
    });
  }
}
