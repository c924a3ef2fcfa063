/** Verdicts only a supervisor can give: a crash after READY, a probe that never agreed, a global timeout. */
import { describeStall, type ActivityStall } from '../../core/activity.js';
import { formatDuration } from '../../core/duration.js';
import type { ClassifierEvent, Verdict } from '../../core/events.js';
import type { CompiledPack } from '../../core/pack-types.js';
import type { Session } from '../../core/session.js';
import type { ProbeResult } from '../health-probe.js';

type AfterReadyEvent = Extract<ClassifierEvent, { type: 'after-ready-failure' }>;

export const BEFORE_READY_DECLARED = 'a fatal error appeared after the log\'s ready line, while the health probe had not yet answered 200: READY was never declared';

/**
 * FAILED after READY. `found` is what a classifier fed only the lines after READY made of them (the root cause
 * from the traceback); without it, the fatal line itself is the evidence.
 */
export function afterReadyVerdict(options: {
  event: AfterReadyEvent;
  found?: Verdict;
  ready?: Verdict;
  pack?: CompiledPack;
  /** False while `--health` still waits for its 200: the log's ready line came, READY was never declared. */
  readyDeclared?: boolean;
}): Verdict {
  const { event, found, ready } = options;
  const elapsedMs = ready ? ready.elapsedMs + Math.max(0, event.at - ready.at) : 0;
  const reason = options.readyDeclared === false ? BEFORE_READY_DECLARED : 'a fatal error appeared after the server was ready';
  if (found) return { ...found, stage: 'ready', elapsedMs, reason };
  const rule = options.pack?.failures.find((r) => r.id === event.rule);
  return {
    verdict: 'failed',
    stage: 'ready',
    at: event.at,
    elapsedMs,
    reason,
    decidedBy: event.line,
    cause: event.cause,
    rule: event.rule,
    message: event.message,
    hint: rule?.hint,
    evidence: [{ ...event.line }],
    symptoms: [],
  };
}

/** The log printed its ready line, but the health probe never answered 200. */
export function healthStallVerdict(options: { ready: Verdict; url: string; waitMs: number; last?: ProbeResult }): Verdict {
  const { ready, url, waitMs, last } = options;
  return {
    verdict: 'stalled',
    stage: ready.stage,
    at: ready.at + waitMs,
    elapsedMs: ready.elapsedMs + waitMs,
    reason: `the log printed its ready line, but ${url} has not answered 200 (last: ${probeText(last)})`,
    evidence: [],
    symptoms: [],
    silentMs: waitMs,
    budget: { ms: waitMs, source: 'override', detail: 'wait for the health probe after the ready line' },
    lastLine: ready.decidedBy,
  };
}

/** The log was silent and the process tree idle (`--idle`) or spinning without I/O (`--spin`) too long. */
export function activityStallVerdict(options: { session: Session; stall: ActivityStall; elapsedMs: number }): Verdict {
  const { session, stall, elapsedMs } = options;
  const state = session.classifier?.state;
  const stage = state?.stage ?? 'none';
  const flag = stall.kind === 'idle' ? '--idle' : '--spin';
  return {
    verdict: 'stalled',
    stage,
    at: session.now,
    elapsedMs,
    reason: describeStall(stall, stage),
    evidence: [],
    symptoms: [],
    silentMs: stall.quietMs,
    budget: { ms: stall.limitMs, source: 'override', detail: `${flag} ${formatDuration(stall.limitMs)}: a silent log with ${stall.kind === 'idle' ? 'an idle process tree' : 'CPU but no I/O'}` },
    lastLine: state?.lastLine,
  };
}

/** `--timeout` passed with no verdict. */
export function timeoutVerdict(options: { session: Session; timeoutMs: number; elapsedMs: number }): Verdict {
  const { session, timeoutMs, elapsedMs } = options;
  const state = session.classifier?.state;
  const now = session.now;
  return {
    verdict: 'stalled',
    stage: state?.stage ?? 'none',
    at: now,
    elapsedMs,
    reason: `no verdict within --timeout ${formatDuration(timeoutMs)}`,
    evidence: [],
    symptoms: [],
    silentMs: state?.lastActivityAt !== undefined ? Math.max(0, now - state.lastActivityAt) : elapsedMs,
    budget: { ms: timeoutMs, source: 'override', detail: '--timeout' },
    lastLine: state?.lastLine,
  };
}

export function probeText(result: ProbeResult | undefined): string {
  if (!result) return 'no answer yet';
  return result.status !== undefined ? `HTTP ${result.status}` : (result.error ?? 'no answer');
}
