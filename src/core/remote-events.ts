/**
 * A follower's events as they arrive over the wire (the objects its `--json` prints, one per
 * NDJSON line), turned back into the session events the group reducer weighs: its stages,
 * restarts, after-ready failures and its own verdict. Everything else a follower says (progress,
 * warnings, its family) only shows it is alive. Pure; the input is untrusted, so every field is
 * checked and anything malformed is dropped rather than believed.
 */
import type { Evidence, LogLine, Verdict } from './events.js';
import type { SessionEvent } from './session.js';
import { isCause, isStage, isVerdictKind } from './vocabulary.js';

/** A pushed text is a log line at most; longer ones are cut, as the line guard cuts lines. */
const MAX_TEXT = 64 * 1024;

type Json = Record<string, unknown>;

export function sessionEventFromJson(value: unknown): SessionEvent | undefined {
  if (!isObject(value)) return undefined;
  const at = numberOr(value.at_ms, 0);
  switch (value.type) {
    case 'stage':
      if (!isStage(value.stage)) return undefined;
      return { type: 'stage', stage: value.stage, from: isStage(value.from) ? value.from : 'none', at, line: lineOf(value.line, value.text, at), rule: text(value.rule), reentered: value.reentered === true };
    case 'restart':
      return { type: 'restart', at, line: lineOf(value.line, undefined, at), rule: text(value.rule) };
    case 'after_ready_failure':
      return { type: 'after-ready-failure', at, line: lineOf(value.line, value.text, at), rule: text(value.rule), cause: isCause(value.cause) ? value.cause : 'unknown', message: text(value.message) };
    case 'verdict': {
      const verdict = verdictFromJson(value);
      return verdict ? { type: 'verdict', verdict } : undefined;
    }
    default:
      return undefined;
  }
}

function verdictFromJson(value: Json): Verdict | undefined {
  if (!isVerdictKind(value.verdict) || !isStage(value.stage)) return undefined;
  const at = numberOr(value.at_ms, 0);
  const verdict: Verdict = {
    verdict: value.verdict,
    stage: value.stage,
    at,
    elapsedMs: numberOr(value.elapsed_ms, 0),
    reason: text(value.reason),
    evidence: evidenceOf(value.evidence, at),
    symptoms: evidenceOf(value.symptoms, at),
  };
  if (isCause(value.cause)) verdict.cause = value.cause;
  for (const key of ['rule', 'message', 'hint'] as const) if (typeof value[key] === 'string') verdict[key] = text(value[key]);
  if (typeof value.silent_ms === 'number') verdict.silentMs = value.silent_ms;
  if (isObject(value.last_line)) verdict.lastLine = lineOf(value.last_line.line, value.last_line.text, at);
  if (isObject(value.decided_by)) verdict.decidedBy = lineOf(value.decided_by.line, value.decided_by.text, at);
  return verdict;
}

function evidenceOf(value: unknown, at: number): Evidence[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, 50).flatMap((e): Evidence[] => {
    if (!isObject(e)) return [];
    const line: Evidence = lineOf(e.line, e.text, at);
    if (typeof e.rank === 'string') line.rank = text(e.rank);
    if (typeof e.proc === 'string') line.proc = text(e.proc);
    return [line];
  });
}

function lineOf(lineNo: unknown, value: unknown, at: number): LogLine {
  return { lineNo: Math.max(0, Math.trunc(numberOr(lineNo, 0))), text: text(value), at };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, MAX_TEXT) : '';
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
