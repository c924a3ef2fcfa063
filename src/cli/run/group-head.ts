/**
 * The head of a multi-node start across machines (`run --listen ADDR --group-size N`): its own
 * server is node 0, a `log` node of the group reducer; every follower that pushes to
 * `POST /v1/nodes/N/events` is a `remote` node, lost when it misses three heartbeat intervals.
 * The head's verdict, exit code, /readyz, /v1/status and /metrics are then the group's.
 */
import { formatDuration } from '../../core/duration.js';
import { DEFAULT_JOIN_BUDGET_MS, GroupReducer, MISSED_HEARTBEATS } from '../../core/group-reducer.js';
import type { GroupEvent, GroupVerdict, SizeSource } from '../../core/group-types.js';
import { namedVerdict } from '../../core/group-verdicts.js';
import type { Verdict } from '../../core/events.js';
import type { SessionEvent } from '../../core/session.js';
import type { Decision, Outcome } from '../../io/supervise/decision.js';
import { systemClock, type WallClock } from '../../io/wall-clock.js';
import { groupStatus } from '../../status/group-status.js';
import type { LiveStatus } from '../live-status.js';
import { pushIntake } from '../push-intake.js';
import type { Sinks } from '../sinks/all-sinks.js';
import type { Sink } from '../sinks/sink.js';

export interface GroupHeadOptions {
  /** Where the group's events, notes and verdict go: the run's outputs (the group's lines among them). */
  outputs: Sinks;
  status: LiveStatus;
  expected: { size: number; from: SizeSource };
  heartbeatMs: number;
  token?: string;
  /** How long a follower may take to join; default DEFAULT_JOIN_BUDGET_MS. */
  joinBudgetMs?: number;
  /** --timeout: the group's too, after the head's own server is ready. */
  timeoutMs?: number;
  clock?: WallClock;
}

/** A follower that failed after the group was READY: its own block, and the run's decision. */
export interface FollowerFailure {
  kind: 'follower';
  group: GroupVerdict;
  decision: Decision;
}

const HEAD = 0;
/** Often enough that a lost follower is seen within a tenth of a second of its third missed beat. */
const TICK_MS = 100;

export class GroupHead implements Sink {
  private readonly reducer: GroupReducer;
  private readonly clock: WallClock;
  private readonly t0: number;
  private readonly ticker: NodeJS.Timeout;
  private resolveVerdict: (verdict: GroupVerdict) => void = () => {};
  private resolveAfterReady: (failure: FollowerFailure) => void = () => {};
  /** The group's verdict, whenever it comes (before the head's own, when a follower fails first). */
  private readonly decided: Promise<GroupVerdict>;
  /** A follower failed or was lost after the group was READY. */
  readonly afterReady: Promise<FollowerFailure>;

  /** How long a follower may take to join (--join-budget). */
  readonly joinBudgetMs: number;

  constructor(private readonly options: GroupHeadOptions) {
    this.clock = options.clock ?? systemClock;
    this.joinBudgetMs = options.joinBudgetMs ?? DEFAULT_JOIN_BUDGET_MS;
    this.t0 = this.clock.now();
    this.reducer = new GroupReducer({
      nodes: [{ node: HEAD, kind: 'log' }],
      expected: options.expected,
      head: HEAD,
      heartbeatIntervalMs: options.heartbeatMs,
      joinBudgetMs: this.joinBudgetMs,
      timeoutMs: options.timeoutMs,
    });
    this.decided = new Promise((resolve) => (this.resolveVerdict = resolve));
    this.afterReady = new Promise((resolve) => (this.resolveAfterReady = resolve));
    this.ticker = setInterval(() => this.emit(this.reducer.tick(this.now())), TICK_MS);
    options.status.server.acceptPushes(
      pushIntake({
        token: options.token,
        local: (node) => node === HEAD,
        take: (node, events) => this.take(node, events),
        note: (text) => this.say(text, true),
      }),
    );
    options.status.model.group(groupStatus(this.reducer.standing()));
    const beats = `${MISSED_HEARTBEATS} heartbeats of ${formatDuration(options.heartbeatMs)}`;
    const join = formatDuration(this.joinBudgetMs);
    this.say(`head of a group of ${options.expected.size} nodes: followers push to /v1/nodes/N/events; one silent for ${beats} is lost; one not joined within ${join} (--join-budget) stalls the group`);
  }

  /** The head's own session events (its verdict comes through `decide`). */
  events(events: readonly SessionEvent[]): void {
    const own = events.filter((e) => e.type !== 'verdict');
    if (own.length > 0) this.emit(this.reducer.push(HEAD, own, this.now()));
  }

  /**
   * The run's startup outcome becomes the group's: the head's own decision joins the group, and
   * the group's verdict (which may come first: a follower failed or was lost) is the run's.
   */
  async startup(local: Promise<Outcome>, options: { signal?: AbortSignal; afterReady?: () => Promise<Outcome> } = {}): Promise<Outcome> {
    const { signal } = options;
    const interrupted = new Promise<Outcome>((resolve) => {
      if (signal?.aborted) resolve({ kind: 'interrupted' });
      signal?.addEventListener('abort', () => resolve({ kind: 'interrupted' }), { once: true });
    });
    const first = await Promise.race([local, this.decided.then((group) => ({ kind: 'group' as const, group }))]);
    if (first.kind === 'interrupted') return first;
    if (first.kind === 'decided') {
      this.emit(this.reducer.push(HEAD, [{ type: 'verdict', verdict: first.decision.verdict }], this.now()));
      // Ready, the head waits for its followers: its own server crashing meanwhile fails the group.
      if (first.decision.verdict.verdict === 'ready') void options.afterReady?.().then((after) => this.headFailedWhileWaiting(after));
    }
    const group = first.kind === 'group' ? first.group : await Promise.race([this.decided, interrupted]);
    if ('kind' in group) return group;
    this.report(group);
    return { kind: 'decided', decision: this.asDecision(group, first.kind === 'decided' ? first.decision : undefined) };
  }

  private headFailedWhileWaiting(after: Outcome): void {
    if (after.kind !== 'decided' || this.reducer.verdict) return;
    this.emit(this.reducer.push(HEAD, [{ type: 'verdict', verdict: { ...after.decision.verdict, verdict: 'failed' } }], this.now()));
  }

  private asDecision(group: GroupVerdict, local?: Decision): Decision {
    const verdict = namedVerdict(group);
    const own = group.node === HEAD && local !== undefined;
    return { ...(own ? local : {}), verdict, by: own ? local.by : 'group' };
  }

  /** The group's verdict to every output: its block, and the status API answers for the group from now on. */
  private report(group: GroupVerdict): void {
    this.options.outputs.verdict({ verdict: namedVerdict(group), group });
  }

  private followerFailure(node: number, verdict: Verdict, at: number): FollowerFailure {
    const group = this.reducer.afterReadyFailure(node, verdict, at);
    // The run's verdict names the node, down to its message (the status API's after_ready_failure);
    // its stage is the group's, READY, wherever the node itself had got to (a follower lost early).
    const message = verdict.message ?? verdict.reason;
    const named: Verdict = { ...verdict, stage: 'ready', reason: `${group.reason}: ${verdict.reason}`, message: message.startsWith(`node ${node} `) ? message : `node ${node}: ${message}` };
    return { kind: 'follower', group, decision: { verdict: named, by: 'group' } };
  }

  /**
   * A follower's failure after READY, said as the node's, not as if the head's own server had
   * died: the group's block naming it (or a `verdict` line with its `node`), and the status API.
   */
  reportFollowerFailure(failure: FollowerFailure): void {
    this.options.outputs.verdict({ verdict: failure.decision.verdict, group: failure.group, node: failure.group.node });
  }

  private take(node: number, events: SessionEvent[]): string | { refused: string } {
    const refused = this.reducer.rankRefusal(node);
    if (refused !== undefined) return { refused };
    this.reducer.addNode(node, 'remote');
    this.emit(events.length > 0 ? this.reducer.push(node, events, this.now()) : this.reducer.heartbeat(node, this.now()));
    return this.reducer.verdict?.verdict ?? 'pending';
  }

  async close(): Promise<void> {
    clearInterval(this.ticker);
  }

  private now(): number {
    return this.clock.now() - this.t0;
  }

  private emit(events: GroupEvent[]): void {
    if (events.length === 0) return;
    // The head's own lines are shown by `run` itself; its verdict, as one of the group's nodes, is not.
    this.options.outputs.groupEvents(events.filter((e) => !(e.type === 'node' && e.node === HEAD && e.event.type !== 'verdict')));
    this.options.status.model.group(groupStatus(this.reducer.standing(), this.reducer.verdict));
    for (const event of events) {
      if (event.type === 'group-verdict') this.resolveVerdict(event.verdict);
      if (event.type === 'after-ready-failure' && event.node !== HEAD) this.resolveAfterReady(this.followerFailure(event.node, event.verdict, event.at));
    }
  }

  private say(text: string, important = false): void {
    this.options.outputs.note({ text, json: { type: 'group_note', text }, important });
  }
}
