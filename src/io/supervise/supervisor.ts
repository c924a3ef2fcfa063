/**
 * Supervises a launched server through the live loop `watch` uses (io/watch-loop.ts): its merged
 * output is the loop's source (and goes to the caller first, for the tee), and the supervisor is
 * the loop's decider beside the log: the process itself is watched too, so a death that leaves no
 * line in the log is still a verdict; so are a health probe that never agrees and --timeout.
 * The loop reads on after the verdict (the watch after READY, the server's last words after
 * Ctrl-C) until the supervisor closes. Never prints: everything is handed to the caller's callbacks.
 */
import type { Readable } from 'node:stream';
import type { Verdict } from '../../core/events.js';
import type { Session, SessionEvent } from '../../core/session.js';
import type { Child, ChildExit, StopReport } from '../child-process.js';
import type { ProbeResult } from '../health-probe.js';
import type { ProcessRef } from '../process-table.js';
import { findOomEvidence } from '../host-oom-evidence.js';
import { AfterReadyWatch } from './after-ready.js';
import type { DecidedBy, Decision, Outcome } from './decision.js';
import { exitAfterReadyVerdict, exitSignal, exitVerdict } from './exit.js';
import { HealthGate } from './health-gate.js';
import { activityStallVerdict, timeoutVerdict } from './verdicts.js';
import { ActivityWatch, type ActivityOptions } from './activity-watch.js';
import { MergedOutput } from './merged-output.js';
import type { StreamName } from './merge.js';
import { interruptGroup, releaseChild, sleep, within } from './stop.js';
import { systemClock, type WallClock } from '../wall-clock.js';
import { runWatchLoop, type LoopDecider } from '../watch-loop.js';

export interface SupervisorOptions {
  child: Child;
  session: Session;
  /** The server's output, whole lines only, bytes as written (for the tee and the echo). */
  onOutput: (bytes: Buffer) => void | Promise<void>;
  /**
   * The session's events. `readyDeclared` false while `--health` still waits after the log's ready
   * line: a fatal line then is no crash after READY, READY never came.
   */
  onEvents: (events: SessionEvent[], readyDeclared: boolean) => void;
  onExit?: (exit: ChildExit) => void;
  /** Every probe result; `changed` when its outcome differs from the previous one. */
  onHealth?: (result: ProbeResult, changed: boolean) => void;
  /** After the log's ready line, the probe must answer 200 within `waitMs`. */
  health?: { url: string; intervalMs?: number; waitMs: number };
  /** No verdict within this long after the launch: STALLED. */
  timeoutMs?: number;
  /** Judge a silent log by what the server's processes do (Linux /proc); absent: by the log alone. */
  activity?: ActivityOptions;
  tickMs?: number;
  signal?: AbortSignal;
  /** Wall time for the session and the deciders; default the system clock. */
  clock?: WallClock;
}

type Phase = 'startup' | 'health-wait' | 'attached' | 'passive';

/** After the process exits, its last output may still be in the pipes. */
const DRAIN_MS = 200;
/** dmesg may be slow; the verdict must come within a second of the death. */
const OOM_EVIDENCE_MS = 500;

/** How long the stop report waits for the death of the main process to be noted first. */
const EXIT_NOTED_MS = 1_000;
/** --keep-on-fail: how long the output already taken may take to reach the log before the hand-over. */
const HAND_OVER_WAIT_MS = 1_000;
const POLL_MS = 10;

export class Supervisor implements LoopDecider {
  private phase: Phase = 'passive';
  private settle: ((outcome: Outcome) => void) | undefined;
  private readonly output: MergedOutput;
  private readonly clock: WallClock;
  private readonly startedAt: number;
  private exit: ChildExit | undefined;
  private concluding = false;
  private wasInterrupted = false;
  /** After `close`, nothing is reported any more (a server left running may still write or exit). */
  private closed = false;
  private lines = 0;
  private readonly health: HealthGate | undefined;
  /** Wall time of the READY decision. */
  private readyDecidedAt = 0;
  private afterReady: AfterReadyWatch | undefined;
  /** READY came from the group's head (a follower): its own classifier never saw a ready line. */
  private readyByGroup = false;
  /** The loop read the child's output to its end (or the supervisor closed). */
  private readonly outputEnded: Promise<void>;
  private readonly unfollow: () => void;
  private readonly activity: ActivityWatch | undefined;

  constructor(private readonly options: SupervisorOptions) {
    this.clock = options.clock ?? systemClock;
    this.startedAt = this.clock.now();
    this.activity = options.activity ? new ActivityWatch(options.activity, this.startedAt) : undefined;
    const { child } = options;
    // Every line the session reads also goes to the after-ready watch (once READY) and is counted: the
    // session's own line hook, so feeding the session is all a driver does with a line.
    this.unfollow = options.session.observe({
      events: () => {},
      line: (raw, session, where) => {
        this.lines++;
        this.activity?.noteLine(session, where.wall ?? this.clock.now());
        this.afterReady?.push(raw, { lineNo: where.lineNo, wall: where.wall });
      },
    });
    this.output = new MergedOutput(child.output, options.onOutput);
    const loop = runWatchLoop({
      source: this.output,
      session: options.session,
      wall: () => this.clock.now(),
      clock: this.clock,
      // Every line counts after the verdict too: the watch after READY reads them all.
      stopAtVerdict: false,
      skipQuietLines: false,
      liveAfterCatchUp: true,
      // How the log ended is for the process's death to say (concludeDeath).
      settleAtEnd: false,
      tickMs: options.tickMs,
      signal: options.signal,
      onAbort: 'drain',
      deciders: [this],
      onEvents: (events) => this.handle(events),
    });
    // A loop error (the tee's own problem) must not become an unhandled rejection; the caller
    // reports it. Ended by it, the source gives nothing more: nothing may wait for it then.
    void loop.catch(() => undefined).then(() => this.output.close());
    this.outputEnded = this.output.drained;
    void child.exited.then((exit) => this.onChildExit(exit));
    if (options.health) {
      this.health = new HealthGate({
        ...options.health,
        onResult: options.onHealth,
        onAgreed: (result) => {
          if (this.phase === 'health-wait' && !this.afterReady?.alarmed) this.decide(options.session.verdict!, 'health', { health: result });
        },
      });
    }
  }

  /** The loop's turn: the watch after READY, the probe's wait and --timeout, on the loop's wall clock. */
  tick(wall: number): void {
    if (this.closed) return;
    this.afterReady?.tick(wall);
    this.checkAfterReady(false);
    const overdue = this.phase === 'health-wait' ? this.health?.overdue(this.options.session.verdict!, wall) : undefined;
    if (overdue) this.decide(overdue, 'health');
    const { timeoutMs } = this.options;
    if (timeoutMs !== undefined && wall - this.startedAt >= timeoutMs && (this.phase === 'startup' || this.phase === 'health-wait')) {
      this.decide(timeoutVerdict({ session: this.options.session, timeoutMs, elapsedMs: wall - this.startedAt }), 'timeout');
    }
    this.judgeActivity(wall);
  }

  /** Before a verdict, a silent log is judged by what the process tree does meanwhile. */
  private judgeActivity(wall: number): void {
    if (!this.activity || this.phase !== 'startup' || this.exit) return;
    const { session } = this.options;
    const stall = this.activity.tick(wall, session.classifier?.state.stage ?? 'none');
    if (stall) this.decide(activityStallVerdict({ session, stall, elapsedMs: wall - this.startedAt }), 'activity');
  }

  /** Ctrl-C, told by the loop (which reads on: the server's last words still go to the log). */
  interrupted(): void {
    this.wasInterrupted = true;
    this.resolve({ kind: 'interrupted' });
  }

  /** Resolves with the startup verdict (READY only once the probe agrees, when there is one), or on Ctrl-C. */
  startup(): Promise<Outcome> {
    return this.enter('startup', () => {
      if (this.exit) void this.concludeDeath();
    });
  }

  /** After READY: resolves when a fatal error appears or the process dies (FAILED), or on Ctrl-C. */
  attached(): Promise<Outcome> {
    return this.enter('attached', () => {
      if (this.afterReady?.alarmed) this.checkAfterReady(true);
      else if (this.exit) void this.concludeDeath();
    });
  }

  /**
   * A follower of a multi-node start: its head says the group is READY. Followers print no ready
   * line of their own, so this is their READY; from now on they are judged as after READY (a
   * fatal line or a death fails them), not by their silence.
   */
  groupReady(verdict: Verdict): void {
    if (this.phase !== 'startup' || this.closed) return;
    this.readyByGroup = true;
    if (this.options.session.pack) this.afterReady = new AfterReadyWatch(this.options.session.pack, verdict);
    this.decide(verdict, 'group');
  }

  /** Only log from now on (while a --then command runs): nothing decides any more. */
  passive(): void {
    this.phase = 'passive';
    this.settle = undefined;
  }

  get exited(): ChildExit | undefined {
    return this.exit;
  }

  get latestProbe(): ProbeResult | undefined {
    return this.health?.latest;
  }

  /** Resolves when the main process has exited, or after `ms`. */
  async waitForExit(ms: number): Promise<void> {
    if (!this.exit) await within(this.options.child.exited, ms, undefined);
  }

  /**
   * SIGTERM the group, SIGKILL after `graceMs`; resolves once the last output is logged and the
   * main process's death noted (`onExit`), so a stop report comes after both. `outsiders`: the
   * processes that left the group, when the caller found them already (child.outsiders).
   */
  async stop(graceMs: number, outsiders?: ProcessRef[]): Promise<StopReport> {
    const report = await this.options.child.stop({ graceMs, outsiders });
    await this.settled();
    return report;
  }

  /** Ctrl-C: SIGINT to the group, up to `graceMs` for it to exit, then `stop`. */
  async interrupt(graceMs: number): Promise<{ report: StopReport; exitedOnSigint: boolean }> {
    const result = await interruptGroup(this.options.child, graceMs);
    await this.settled();
    return result;
  }

  private async settled(): Promise<void> {
    // Registered after onChildExit's own reaction, so that one has run when this resolves.
    await Promise.all([within(this.outputEnded, 1_000, undefined), within(this.options.child.exited, EXIT_NOTED_MS, undefined)]);
  }

  /** Leaves the server running on its own (--keep-on-fail): spinup may exit without waiting for it. */
  release(): void {
    this.close();
    releaseChild(this.options.child);
  }

  /**
   * Leaves the server running with its output handed over (--keep-on-fail): spinup stops taking
   * it, lets what it took reach the log (`onOutput`) as whole lines, then gives the pipes and the
   * partial lines held to `drain` (a process that outlives us, log-drainer.ts), which completes
   * them, and closes its own copies, so the server never writes into a pipe nobody reads.
   * Resolves with what `drain` returned (its pid).
   */
  async handOver<T>(drain: (pipes: { stdout: Readable; stderr: Readable; held: Record<StreamName, Buffer> }) => T): Promise<T> {
    const { child } = this.options;
    child.holdOutput();
    // The chunks taken before the hold go through the merger to the log on the loop's turns.
    for (let waited = 0; !this.output.caughtUp && waited < HAND_OVER_WAIT_MS; waited += POLL_MS) await sleep(POLL_MS);
    // From here to the end nothing yields: no read of the pipes can come between our last and the drainer's first.
    const handover = child.handOver();
    const held = this.output.finish(handover.rest);
    const drained = drain({ stdout: handover.stdout, stderr: handover.stderr, held });
    handover.close();
    this.release();
    return drained;
  }

  /** Stops timers and the probe; the process is left as it is. */
  close(): void {
    this.closed = true;
    this.passive();
    this.health?.stop();
    this.unfollow();
    this.output.close();
  }

  private enter(phase: Phase, then: () => void): Promise<Outcome> {
    return new Promise((resolve) => {
      this.phase = phase;
      this.settle = resolve;
      if (this.wasInterrupted) this.resolve({ kind: 'interrupted' });
      else then();
    });
  }

  private resolve(outcome: Outcome): void {
    const settle = this.settle;
    if (!settle) return;
    this.passive();
    settle(outcome);
  }

  private decide(verdict: Verdict, by: DecidedBy, extra: Partial<Decision> = {}): void {
    if (this.settle) this.activity?.finish(this.clock.now());
    if (verdict.verdict === 'ready' && this.settle) this.readyDecidedAt = this.clock.now();
    this.resolve({ kind: 'decided', decision: { verdict, by, exit: this.exit, health: this.health?.latest, ...extra } });
  }

  private handle(received: SessionEvent[]): void {
    // After the user's Ctrl-C (the SIGINT we forwarded), a fatal line is the server's answer to it
    // (Python's KeyboardInterrupt traceback), not a crash: neither said nor counted.
    const events = this.wasInterrupted ? received.filter((event) => event.type !== 'after-ready-failure') : received;
    if (events.length === 0 || this.closed) return;
    this.options.onEvents(events, this.phase !== 'health-wait');
    for (const event of events) {
      if (event.type === 'verdict' && this.phase === 'startup') this.onLogVerdict(event.verdict);
      // A follower's classifier still waits for a ready line: its failure is a failure after READY.
      if (event.type === 'verdict' && this.phase === 'attached' && this.readyByGroup && event.verdict.verdict === 'failed') this.decide(event.verdict, 'log');
      if (event.type === 'after-ready-failure') {
        this.afterReady?.notice(event, this.clock.now());
        this.checkAfterReady(false);
      }
    }
  }

  private onLogVerdict(verdict: Verdict): void {
    if (verdict.verdict !== 'ready') {
      this.decide(verdict, 'log');
      return;
    }
    this.afterReady = new AfterReadyWatch(this.options.session.pack!, verdict);
    if (!this.health) {
      this.decide(verdict, 'log');
      return;
    }
    this.phase = 'health-wait';
    this.health.wait(this.clock.now());
  }

  /** A fatal line after READY decides once the rest of its traceback is in (or the process died). */
  private checkAfterReady(force: boolean): boolean {
    if (this.phase !== 'health-wait' && this.phase !== 'attached') return false;
    const verdict = this.afterReady?.verdict({ now: this.clock.now(), force, readyDeclared: this.phase !== 'health-wait' });
    if (verdict) this.decide(verdict, 'log');
    return verdict !== undefined;
  }

  private onChildExit(exit: ChildExit): void {
    this.exit = exit;
    if (this.closed) return;
    this.options.onExit?.(exit);
    if (this.phase !== 'passive') void this.concludeDeath();
  }

  /** The main process died: let its last words arrive, then decide from them, else from the exit itself. */
  private async concludeDeath(): Promise<void> {
    if (this.concluding) return;
    this.concluding = true;
    const exit = this.exit!;
    const { child, session } = this.options;
    const oom = exitSignal(exit) === 'SIGKILL' ? within(findOomEvidence({ pid: child.pid, sinceMs: child.startedAt }), OOM_EVIDENCE_MS, []) : Promise.resolve([]);
    const [oomEvidence] = await Promise.all([oom, within(this.outputEnded, DRAIN_MS, undefined)]);
    this.concluding = false;
    // A partial last line is a line: the writer is dead. (Orphans may still hold the pipes.)
    await this.output.flush();
    const elapsedMs = exit.at - child.startedAt;
    const state = session.classifier?.state;
    const base = { exit, stage: state?.stage ?? 'none', lastLine: state?.lastLine, at: session.now, elapsedMs, oomEvidence };
    if (this.phase === 'startup') {
      // The end of the output settles what the log holds: a failure whose root cause was still on its way.
      if (this.lines > 0) this.options.onEvents(session.end(), false);
      const logged = session.verdict;
      if (logged?.verdict === 'failed') this.decide(logged, 'log', { oomEvidence });
      else this.decide(exitVerdict({ ...base, afterReadyLine: logged?.verdict === 'ready' }), 'process', { oomEvidence });
    } else if (this.checkAfterReady(true)) {
      // A fatal line after the ready line explains the death.
    } else if (this.phase === 'health-wait') {
      this.decide(exitVerdict({ ...base, afterReadyLine: true }), 'process', { oomEvidence });
    } else if (this.phase === 'attached') {
      const ready = session.verdict;
      const sinceReady = ready?.verdict === 'ready' ? ready.elapsedMs + Math.max(0, exit.at - this.readyDecidedAt) : elapsedMs;
      this.decide(exitAfterReadyVerdict({ ...base, stage: 'ready', elapsedMs: sinceReady }), 'process', { oomEvidence });
    }
  }
}
