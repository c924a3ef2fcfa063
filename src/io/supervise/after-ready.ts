/**
 * The question after READY, which is not the startup question: did a fatal error appear? The main classifier
 * only flags the first fatal line after its verdict; a classifier of its own, fed only the lines after READY,
 * finds the root cause in the traceback that follows, as it would have during startup.
 */
import type { ClassifierEvent, Verdict } from '../../core/events.js';
import type { CompiledPack } from '../../core/pack-types.js';
import { Session, type LineWhere } from '../../core/session.js';
import { afterReadyVerdict } from './verdicts.js';

type AfterReadyEvent = Extract<ClassifierEvent, { type: 'after-ready-failure' }>;

/** After a fatal line, how long the rest of its traceback (and other ranks' tracebacks) may take to arrive. */
const SETTLE_MS = 2_000;
// A ready server is silent for hours and logs request tracebacks it survives: neither may decide anything here.
const NEVER = Number.MAX_SAFE_INTEGER;

export class AfterReadyWatch {
  private readonly session: Session;
  private pending: { event: AfterReadyEvent; deadline: number } | undefined;

  constructor(
    private readonly pack: CompiledPack,
    private readonly ready: Verdict,
  ) {
    this.session = new Session({ packs: [pack], family: pack.name, classifier: { stallOverrideMs: NEVER, uncaughtSettleMs: NEVER } });
  }

  /** A fatal line was flagged by the main classifier. */
  get alarmed(): boolean {
    return this.pending !== undefined;
  }

  push(text: string, where: LineWhere): void {
    this.session.push(text, where);
  }

  tick(wall: number): void {
    this.session.tick({ wall });
  }

  /** The main classifier flagged a fatal line after READY (the first one counts). */
  notice(event: AfterReadyEvent, now: number): void {
    this.pending ??= { event, deadline: now + SETTLE_MS };
  }

  /**
   * FAILED once its root cause is settled (or at once with `force`: the process died); undefined until then.
   * `readyDeclared` false: the health probe still had to agree, so the words say READY never came.
   */
  verdict(options: { now: number; force: boolean; readyDeclared: boolean }): Verdict | undefined {
    const { now, force, readyDeclared } = options;
    const pending = this.pending;
    if (!pending) return undefined;
    const settled = this.session.verdict?.verdict === 'failed';
    if (!settled && !force && now < pending.deadline) return undefined;
    if (!settled) this.session.end();
    const found = this.session.verdict?.verdict === 'failed' ? this.session.verdict : undefined;
    return afterReadyVerdict({ event: pending.event, found, ready: this.ready, pack: this.pack, readyDeclared });
  }
}
