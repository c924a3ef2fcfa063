/**
 * The words of an exception beyond its own line: the lines that continue its message (a wrapped
 * text, a build's output) and, for an opaque one, the native error lines printed just before its
 * traceback. Both join the root cause's evidence and feed the cause-inference tables.
 */
import type { Evidence } from './events.js';
import { applyInference, TIER, type Candidate } from './root-cause.js';
import { inferCause, isRemedy, type InferenceInput } from './infer-cause.js';
import type { FrameMatch } from './match-frame.js';
import type { CompiledInferenceTables } from './pack-types.js';
import type { ParsedFrame } from './parse-line.js';
import type { RunState } from './run-state.js';
import { TRACEBACK_CUES } from './traceback.js';

/** Lines after an exception that may continue its message (wrapped text, pydantic details). */
const CONTINUATION_LINES = 3;
/** How far before an opaque exception's traceback its process's native error lines are read. */
const NATIVE_LOOKBACK_LINES = 20;
const NATIVE_KEPT = 8;
const NATIVE_ERROR_LEVELS = new Set(['E', 'F']);

/** A glog-style error line (`E0608 10:49:50.145396 ... file.cpp:592] ...`) no rule claimed. */
export function isNativeError(frame: ParsedFrame): boolean {
  return frame.level !== undefined && NATIVE_ERROR_LEVELS.has(frame.level);
}

export function rememberNativeError(run: RunState, evidence: Evidence): void {
  run.nativeErrors.push(evidence);
  if (run.nativeErrors.length > NATIVE_KEPT) run.nativeErrors.shift();
}

/** The next few lines may continue this exception's message (`reinfer`: its words may still name the cause). */
export function startContinuation(start: { run: RunState; candidate: Candidate; frame: ParsedFrame; reinfer?: { input: InferenceInput; text: string } }): void {
  const { run, candidate, frame, reinfer } = start;
  run.continuation = { candidate, left: CONTINUATION_LINES, logger: frame.logged ? loggerOf(frame) : undefined, reinfer };
}

/**
 * An exception line that holds only its class or an enum code: the error-level native lines
 * (glog E/F lines no rule claimed) of the same process just before the traceback are its words.
 */
export function readNativeLinesBefore(read: { run: RunState; tables: CompiledInferenceTables; candidate: Candidate; startLine: number }): void {
  const { run, tables, candidate, startLine } = read;
  const native = run.nativeErrors.filter((e) => e.lineNo < startLine && e.lineNo >= startLine - NATIVE_LOOKBACK_LINES && sameProcess(e, candidate.evidence[0]));
  if (native.length === 0) return;
  // The native lines say more than the enum code: their words come first.
  const inferred = inferCause(tables, { className: '', words: native.map((e) => e.text).join('\n') });
  if (inferred && candidate.tier >= TIER.inferred) applyInference(candidate, inferred, candidate.evidence[0]?.text ?? '');
  candidate.evidence.unshift(...native);
}

function sameProcess(a: Evidence, b: Evidence | undefined): boolean {
  return (a.proc ?? a.rank ?? '') === (b?.proc ?? b?.rank ?? '') || (a.proc === undefined && a.rank === undefined);
}

/** Who logged a line: a logged exception continues on lines of the same process at the same level. */
function loggerOf(frame: ParsedFrame): string {
  return `${frame.proc ?? ''}|${frame.rank ?? ''}|${frame.level ?? ''}`;
}

/**
 * An exception message wrapped over the next few lines belongs to its evidence, and its words
 * to the inference; a generic remedy text the server prints after it ends the message.
 */
export function continueMessage(next: { run: RunState; tables: CompiledInferenceTables; match: FrameMatch; evidence: Evidence }): void {
  const { run, tables, match, evidence } = next;
  const continuation = run.continuation;
  const body = match.frame.body;
  const continues =
    continuation &&
    match.failures.length === 0 &&
    !match.benign &&
    (match.frame.logged ? continuation.logger === loggerOf(match.frame) : continuation.logger === undefined) &&
    !TRACEBACK_CUES.some((cue) => body.includes(cue)) &&
    !isRemedy(tables, body);
  if (!continuation || !continues || continuation.left-- <= 0) {
    run.continuation = undefined;
    return;
  }
  continuation.candidate.evidence.push(evidence);
  if (!continuation.reinfer) return;
  continuation.reinfer.input.words += `\n${body.trim()}`;
  const inferred = inferCause(tables, continuation.reinfer.input);
  if (inferred) applyInference(continuation.candidate, inferred, continuation.reinfer.text);
}
