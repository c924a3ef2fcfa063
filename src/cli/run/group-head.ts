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
import type { Session, SessionEvent } from '../../core/session.js';
import type { Decision, Outcome } from '../../io/supervise/decision.js';
import { systemClock, type WallClock } from '../../io/wall-clock.js';
import { groupStatus } from '../../status/group-status.js';
import { GroupReporter, type GroupReportMode } from '../format/group-reporter.js';
import { formatGroupVerdict } from '../format/group-text.js';
import { verdictJson } from '../format/verdict-json.js';
import { verdictStream, write, type Io } from '../io-context.js';
import type { EventSink, LiveStatus } from '../live-status.js';
import { pushIntake } from '../push-intake.js';

export interface GroupHeadOptions {
  io: Io;
  mode: GroupReportMode;
  color: boolean;
  session: Session;
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

export class GroupHead implements EventSink {
  private readonly reducer: GroupReducer;
  private readonly reporter: GroupReporter;
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
    this.reporter = new GroupReporter(options.io, options.mode, options.color);
    this.decided = new Promise((resolve) => (this.resolveVerdict = resolve));
    this.afterReady = new Promise((resolve) => (this.resolveAfterReady = resolve));
    this.ticker = setInterval(() => this.emit(this.reducer.tick(this.now())), TICK_MS);
    options.status.server.acceptPushes(
      pushIntake({
        token: options.token,
        local: (node) => node === HEAD,
        take: (node, events) => this.take(node, events),
        note: (text) => this.note(text, true),
      }),
    );
    options.status.model.group(groupStatus(this.reducer.standing()));
    const beats = `${MISSED_HEARTBEATS} heartbeats of ${formatDuration(options.heartbeatMs)}`;
    const join = formatDuration(this.joinBudgetMs);
    this.note(`head of a group of ${options.expected.size} nodes: followers push to /v1/nodes/N/events; one silent for ${beats} is lost; one not joined within ${join} (--join-budget) stalls the group`);
  }

  /** The head's own session events (its verdict comes through `decide`). */
  events(events: readonly SessionEvent[]): void {
    const own = events.filter((e) => e.type !== 'verdict');
    if (own.length > 0) this.emit(this.reducer.push(HEAD, own, this.now()));
  }

  /** The head's verdict joins the group's through `startup` (the run decides it: its log, process, probe). */
  verdict(): void {}

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

  /** The verdict block, on stderr like the rest of `run`'s words (stdout when stderr is closed); the status API answers for the group from now on. */
  private report(group: GroupVerdict): void {
    this.options.status.verdict(namedVerdict(group));
    if (this.options.mode === 'json') return; // the group_verdict event said it
    write(verdictStream(this.options.io), `${formatGroupVerdict(group, { color: this.options.color, family: this.options.session.pack?.name })}\n`);
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
    this.options.status.verdict(failure.decision.verdict, failure.group.node);
    const family = this.options.session.pack?.name;
    if (this.options.mode === 'json') {
      const json = verdictJson(failure.decision.verdict, { family, decided_by: 'group', node: failure.group.node });
      write(this.options.io.stdout, `${JSON.stringify({ type: 'verdict', ...json })}\n`);
      return;
    }
    write(verdictStream(this.options.io), `${formatGroupVerdict(failure.group, { color: this.options.color, family })}\n`);
  }

  private take(node: number, events: SessionEvent[]): string | { refused: string } {
    const refused = this.reducer.rankRefusal(node);
    if (refused !== undefined) return { refused };
    this.reducer.addNode(node, 'remote');
    this.emit(events.length > 0 ? this.reducer.push(node, events, this.now()) : this.reducer.heartbeat(node, this.now()));
    return this.reducer.verdict?.verdict ?? 'pending';
  }

  close(): void {
    clearInterval(this.ticker);
  }

  private now(): number {
    return this.clock.now() - this.t0;
  }

  private emit(events: GroupEvent[]): void {
    if (events.length === 0) return;
    // The head's own lines are shown by `run` itself; its verdict, as one of the group's nodes, is not.
    this.reporter.events(events.filter((e) => !(e.type === 'node' && e.node === HEAD && e.event.type !== 'verdict')));
    this.options.status.model.group(groupStatus(this.reducer.standing(), this.reducer.verdict));
    for (const event of events) {
      if (event.type === 'group-verdict') this.resolveVerdict(event.verdict);
      if (event.type === 'after-ready-failure' && event.node !== HEAD) this.resolveAfterReady(this.followerFailure(event.node, event.verdict, event.at));
    }
  }

  private note(text: string, important = false): void {
    if (this.options.mode === 'json') write(this.options.io.stdout, `${JSON.stringify({ type: 'group_note', text })}\n`);
    else if (this.options.mode === 'lines' || important) write(this.options.io.stderr, `spinup: ${text}\n`);
  }
}
