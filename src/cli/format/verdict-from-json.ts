/**
 * The other way from verdict-json.ts: a verdict as `/v1/events` carries it, back into the shape
 * the verdict block is drawn from, so `attach` prints exactly what `watch` printed.
 */
import type { Budget, Evidence, LogLine, Verdict } from '../../core/events.js';
import type { Cause, Stage, VerdictKind } from '../../core/vocabulary.js';

interface JsonLine {
  line: number;
  text: string;
  rank?: string;
  proc?: string;
}

export function verdictFromJson(json: Record<string, unknown>): Verdict {
  const line = (value: unknown): LogLine | undefined => {
    const l = value as JsonLine | undefined;
    return l && typeof l.line === 'number' ? { lineNo: l.line, text: String(l.text ?? ''), at: 0 } : undefined;
  };
  const lines = (value: unknown): Evidence[] => (Array.isArray(value) ? (value as JsonLine[]).map((l) => ({ lineNo: l.line, text: String(l.text ?? ''), at: 0, rank: l.rank, proc: l.proc })) : []);
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return {
    verdict: json.verdict as VerdictKind,
    stage: (json.stage as Stage) ?? 'none',
    at: Number(json.at_ms ?? 0),
    elapsedMs: Number(json.elapsed_ms ?? 0),
    reason: text(json.reason) ?? '',
    decidedBy: line(json.decided_by),
    cause: json.cause as Cause | undefined,
    rule: text(json.rule),
    message: text(json.message),
    hint: text(json.hint),
    evidence: lines(json.evidence),
    rank: text(json.rank),
    proc: text(json.proc),
    symptoms: lines(json.symptoms),
    silentMs: typeof json.silent_ms === 'number' ? json.silent_ms : undefined,
    budget: json.budget as Budget | undefined,
    lastLine: line(json.last_line),
  };
}
