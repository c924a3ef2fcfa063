/**
 * A line's severity, as its logger printed it (vLLM's `WARNING`, glog's `W`): below error, a line
 * is a warning whatever a rule reads in it. It never fails a start by itself, before READY or
 * after it; before READY it may explain a later death (weigh-failures.ts).
 */
const BELOW_ERROR = new Set(['WARNING', 'WARN', 'W', 'INFO', 'I', 'DEBUG', 'NOTE', 'TRACE']);

export function belowError(level: string | undefined): boolean {
  return level !== undefined && BELOW_ERROR.has(level);
}
