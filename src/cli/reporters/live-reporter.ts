/**
 * What a live start (`watch`, `run`) says while it goes on, behind one interface: one reporter per
 * format (lines, a TTY status line, JSON events, quiet), chosen once at the edge, and several at
 * once through `fanOut` (the status API is one more reporter). The loops never branch on a format.
 */
import type { Verdict } from '../../core/events.js';
import type { SessionEvent } from '../../core/session.js';

export interface SourceNotice {
  type: string;
  path?: string;
  detail?: string;
}

export interface LiveReporter {
  /** Session events as they happen (verdicts included). */
  events(events: SessionEvent[]): void;
  /** The input said something about itself (a rotation, a history warning). */
  notice(notice: SourceNotice): void;
  /** Once a second on the wall clock: a status line redraws. */
  tick(): void;
  /** A verdict the log decided before the watch began, reported unless a new run starts. */
  earlier(verdict: Verdict, detail: string): void;
  /** The final verdict. */
  verdict(verdict: Verdict): void;
  /** Where there is no verdict to print: Ctrl-C, timeouts, notes. */
  message(text: string): void;
}

/** A reporter that says nothing; the others override what their format shows. */
export class SilentReporter implements LiveReporter {
  events(_events: SessionEvent[]): void {}
  notice(_notice: SourceNotice): void {}
  tick(): void {}
  earlier(_verdict: Verdict, _detail: string): void {}
  verdict(_verdict: Verdict): void {}
  message(_text: string): void {}
}

/** Several reporters as one, called in order. */
export function fanOut(...reporters: LiveReporter[]): LiveReporter {
  if (reporters.length === 1) return reporters[0]!;
  return {
    events: (events) => reporters.forEach((r) => r.events(events)),
    notice: (notice) => reporters.forEach((r) => r.notice(notice)),
    tick: () => reporters.forEach((r) => r.tick()),
    earlier: (verdict, detail) => reporters.forEach((r) => r.earlier(verdict, detail)),
    verdict: (verdict) => reporters.forEach((r) => r.verdict(verdict)),
    message: (text) => reporters.forEach((r) => r.message(text)),
  };
}
