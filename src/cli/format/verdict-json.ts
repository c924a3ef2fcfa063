/** Verdicts and events as plain JSON for scripts and dashboards. */
import type { SessionEvent } from '../../core/session.js';
import type { Verdict } from '../../core/events.js';

export function verdictJson(verdict: Verdict, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    verdict: verdict.verdict,
    stage: verdict.stage,
    cause: verdict.cause,
    rule: verdict.rule,
    message: verdict.message,
    hint: verdict.hint,
    elapsed_ms: verdict.elapsedMs,
    at_ms: verdict.at,
    reason: verdict.reason,
    evidence: verdict.evidence.map((e) => ({ line: e.lineNo, text: e.text, rank: e.rank, proc: e.proc })),
    symptoms: verdict.symptoms.map((e) => ({ line: e.lineNo, text: e.text })),
    cause_elsewhere: verdict.causeElsewhere,
    family_unknown: verdict.familyUnknown,
    lines_read: verdict.linesRead,
    rank: verdict.rank,
    proc: verdict.proc,
    silent_ms: verdict.silentMs,
    budget: verdict.budget,
    last_line: verdict.lastLine ? { line: verdict.lastLine.lineNo, text: verdict.lastLine.text } : undefined,
    decided_by: verdict.decidedBy ? { line: verdict.decidedBy.lineNo, text: verdict.decidedBy.text } : undefined,
    ...extra,
  };
}

/** One JSON object per event, `type` first. */
export function eventJson(event: SessionEvent): Record<string, unknown> {
  switch (event.type) {
    case 'verdict':
      return { type: 'verdict', ...verdictJson(event.verdict) };
    case 'family':
      return { type: 'family', family: event.family, detected: event.detected, certain: event.certain };
    case 'stage':
      return { type: 'stage', stage: event.stage, from: event.from, at_ms: event.at, line: event.line.lineNo, rule: event.rule, reentered: event.reentered };
    case 'progress':
      return { type: 'progress', stage: event.stage, at_ms: event.at, line: event.line.lineNo, ...event.progress };
    case 'warning':
      return { type: 'warning', at_ms: event.at, line: event.line.lineNo, rule: event.rule, cause: event.cause, message: event.message, text: event.line.text };
    case 'restart':
      return { type: 'restart', at_ms: event.at, line: event.line.lineNo, rule: event.rule };
    case 'after-ready-failure':
      return { type: 'after_ready_failure', at_ms: event.at, line: event.line.lineNo, rule: event.rule, cause: event.cause, message: event.message, text: event.line.text };
  }
}
