/**
 * A line's severity, as its logger printed it (vLLM's `WARNING`, glog's `W`): below error, a line
 * is a warning whatever a rule reads in it. It never fails a start by itself, before READY or
 * after it; before READY it may explain a later death (weigh-failures.ts).
 */
const CALM = new Set(['INFO', 'I', 'DEBUG', 'NOTE', 'TRACE']);
const WARNING = new Set(['WARNING', 'WARN', 'W']);

/** INFO or calmer: a line that reports, never one that warns or fails. */
export function isCalm(level: string | undefined): boolean {
  return level !== undefined && CALM.has(level);
}

export function isWarning(level: string | undefined): boolean {
  return level !== undefined && WARNING.has(level);
}

export function belowError(level: string | undefined): boolean {
  return isCalm(level) || isWarning(level);
}
