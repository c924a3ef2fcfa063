/**
 * Supervises a launched server: its merged output goes to the classifier (and to the caller, for the tee), and
 * the process itself is watched too, so a death that leaves no line in the log is still a verdict. Never prints:
 * everything is handed to the caller's callbacks.
 */
import type { Verdict } from '../../core/events.js';
import type { Session, SessionEvent } from '../../core/session.js';
import type { Child, ChildExit, StopReport } from '../child-process.js';
import { HealthPoller, probeHealth, type ProbeResult } from '../health-probe.js';
import { findOomEvidence } from '../host-oom-evidence.js';
import { AfterReadyWatch } from './after-ready.js';
import { healthStallVerdict, timeoutVerdict } from './verdicts.js';
import { exitAfterReadyVerdict, exitSignal, exitVerdict } from './exit.js';
import { StreamMerger, type Merged } from './merge.js';
import { interruptGroup, releaseChild, within } from './stop.js';
import { systemClock, type WallClock } from '../wall-clock.js';

export interface SupervisorOptions {
  child: Child;
  session: Session;
  /** The server's output, whole lines only, bytes as written (for the tee and the echo). */
  onOutput: (bytes: Buffer) => void | Promise<void>;
  onEvents: (events: SessionEvent[]) => void;
  onExit?: (exit: ChildExit) => void;
  /** Every probe result; `changed` when its outcome differs from the previous one. */
  onHealth?: (result: ProbeResult, changed: boolean) => void;
  /** After the log's ready line, the probe must answer 200 within `waitMs`. */
  health?: { url: string; intervalMs?: number; waitMs: number };
  /** No verdict within this long after the launch: STALLED. */
  timeoutMs?: number;
  tickMs?: number;
  signal?: AbortSignal;
  /** Wall time for the session and the deciders; default the system clock. */
  clock?: WallClock;
}

/** What decided a verdict. */
export type DecidedBy = 'log' | 'process' | 'health' | 'timeout' | 'group';

export interface Decision {
  verdict: Verdict;
  by: DecidedBy;
  /** How the main process ended, when it had by then. */
  exit?: ChildExit;
  oomEvidence?: string[];
  /** The probe result that confirmed READY, or the last one seen. */
  health?: ProbeResult;
}

export type Outcome = { kind: 'decided'; decision: Decision } | { kind: 'interrupted' };

type Phase = 'startup' | 'health-wait' | 'attached' | 'passive';

/** After the process exits, its last output may still be in the pipes. */
const DRAIN_MS = 200;
/** dmesg may be slow; the verdict must come within a second of the death. */
const OOM_EVIDENCE_MS = 500;
const PROBE_TIMEOUT_MS = 2_000;

export class Supervisor {
  private phase: Phase = 'passive';
  private settle: ((outcome: Outcome) => void) | undefined;
  private readonly merger = new StreamMerger();
  private readonly clock: WallClock;
  private readonly startedAt: number;
  private exit: ChildExit | undefined;
  private concluding = false;
  private interrupted = false;
  /** After `close`, nothing is reported any more (a server left running may still write or exit). */
  private closed = false;
  private lines = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private poller: HealthPoller | undefined;
  private lastProbe: ProbeResult | undefined;
  /** Wall time of the log's ready line (the probe has to agree after it) and of the READY decision. */
  private readyAt = 0;
  private readyDecidedAt = 0;
  private afterReady: AfterReadyWatch | undefined;
  /** READY came from the group's head (a follower): its own classifier never saw a ready line. */
  private readyByGroup = false;
  private readonly outputEnded: Promise<void>;
  private readonly unfollow: () => void;
  private readonly onAbort = (): void => {
    this.interrupted = true;
    this.resolve({ kind: 'interrupted' });
  };

  constructor(private readonly options: SupervisorOptions) {
    this.clock = options.clock ?? systemClock;
    this.startedAt = this.clock.now();
    const { child } = options;
    // Every line the session reads also goes to the after-ready watch (once READY) and is counted: the
    // session's own line hook, so feeding the session is all a driver does with a line.
    this.unfollow = options.session.observe({
      events: () => {},
      line: (raw, _session, where) => {
        this.lines++;
        this.afterReady?.push(raw, { lineNo: where.lineNo, wall: where.wall });
      },
    });
    // A pump error (the tee's own problem) must not become an unhandled rejection; the caller reports it.
    this.outputEnded = this.pump().catch(() => undefined);
    void child.exited.then((exit) => this.onChildExit(exit));
    this.timers.push(setInterval(() => this.tick(), options.tickMs ?? 200));
    if (options.timeoutMs !== undefined) {
      this.timers.push(setTimeout(() => this.onTimeout(), options.timeoutMs));
    }
    if (options.health) {
      this.poller = new HealthPoller({ url: options.health.url, intervalMs: options.health.intervalMs, onResult: (r) => this.onProbe(r) });
      this.poller.start();
    }
    if (options.signal?.aborted) this.interrupted = true;
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
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
    return this.lastProbe;
  }

  /** Resolves when the main process has exited, or after `ms`. */
  async waitForExit(ms: number): Promise<void> {
    if (!this.exit) await within(this.options.child.exited, ms, undefined);
  }

  /** SIGTERM the group, SIGKILL after `graceMs`; resolves once the last output is logged. */
  async stop(graceMs: number): Promise<StopReport> {
    const report = await this.options.child.stop({ graceMs });
    await within(this.outputEnded, 1_000, undefined);
    return report;
  }

  /** Ctrl-C: SIGINT to the group, up to `graceMs` for it to exit, then `stop`. */
  async interrupt(graceMs: number): Promise<{ report: StopReport; exitedOnSigint: boolean }> {
    const result = await interruptGroup(this.options.child, graceMs);
    await within(this.outputEnded, 1_000, undefined);
    return result;
  }

  /** Leaves the server running on its own (--keep-on-fail): spinup may exit without waiting for it. */
  release(): void {
    this.close();
    releaseChild(this.options.child);
  }

  /** Stops timers and the probe; the process is left as it is. */
  close(): void {
    this.closed = true;
    this.passive();
    for (const timer of this.timers) clearTimeout(timer);
    this.poller?.stop();
    this.unfollow();
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  private enter(phase: Phase, then: () => void): Promise<Outcome> {
    return new Promise((resolve) => {
      this.phase = phase;
      this.settle = resolve;
      if (this.interrupted) this.resolve({ kind: 'interrupted' });
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
    if (verdict.verdict === 'ready' && this.settle) this.readyDecidedAt = this.clock.now();
    this.resolve({ kind: 'decided', decision: { verdict, by, exit: this.exit, health: this.lastProbe, ...extra } });
  }

  private async pump(): Promise<void> {
    for await (const { stream, chunk } of this.options.child.output) await this.take(this.merger.push(stream, chunk));
    await this.take(this.merger.end());
  }

  private async take(merged: Merged): Promise<void> {
    if (merged.bytes.length > 0) await this.options.onOutput(merged.bytes);
    const wall = this.clock.now();
    for (const line of merged.lines) this.handle(this.options.session.push(line.text, { lineNo: line.lineNo, wall, live: true }));
    this.checkAfterReady(false);
  }

  private tick(): void {
    const wall = this.clock.now();
    this.handle(this.options.session.tick({ wall }));
    this.afterReady?.tick(wall);
    this.checkAfterReady(false);
    if (this.phase === 'health-wait' && wall - this.readyAt >= this.options.health!.waitMs) {
      const verdict = healthStallVerdict({ ready: this.options.session.verdict!, url: this.options.health!.url, waitMs: this.options.health!.waitMs, last: this.lastProbe });
      this.decide(verdict, 'health');
    }
  }

  private handle(events: SessionEvent[]): void {
    if (events.length === 0 || this.closed) return;
    this.options.onEvents(events);
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
    if (!this.options.health) {
      this.decide(verdict, 'log');
      return;
    }
    this.phase = 'health-wait';
    this.readyAt = this.clock.now();
    void probeHealth(this.options.health.url, { timeoutMs: PROBE_TIMEOUT_MS }).then((result) => this.onProbe(result));
  }

  private onProbe(result: ProbeResult): void {
    const previous = this.lastProbe;
    this.lastProbe = result;
    this.options.onHealth?.(result, previous?.ok !== result.ok || previous?.status !== result.status);
    if (this.phase === 'health-wait' && result.ok && !this.afterReady?.alarmed) this.decide(this.options.session.verdict!, 'health', { health: result });
  }

  /** A fatal line after READY decides once the rest of its traceback is in (or the process died). */
  private checkAfterReady(force: boolean): boolean {
    if (this.phase !== 'health-wait' && this.phase !== 'attached') return false;
    const verdict = this.afterReady?.verdict(this.clock.now(), force);
    if (verdict) this.decide(verdict, 'log');
    return verdict !== undefined;
  }

  private onTimeout(): void {
    if (this.phase !== 'startup' && this.phase !== 'health-wait') return;
    this.decide(timeoutVerdict({ session: this.options.session, timeoutMs: this.options.timeoutMs!, elapsedMs: this.clock.now() - this.startedAt }), 'timeout');
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
    await this.take(this.merger.end());
    const elapsedMs = exit.at - child.startedAt;
    const state = session.classifier?.state;
    const base = { exit, stage: state?.stage ?? 'none', lastLine: state?.lastLine, at: session.now, elapsedMs, oomEvidence };
    if (this.phase === 'startup') {
      // The end of the output settles what the log holds: a failure whose root cause was still on its way.
      if (this.lines > 0) this.options.onEvents(session.end());
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
