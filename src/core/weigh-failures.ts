/**
 * Turns the failure rules that matched a frame, and the exception a traceback closed on it,
 * into root-cause candidates; notes when the start has taken a fatal blow.
 */
import type { ClassifierEvent, Evidence, LogLine } from './events.js';
import type { FrameMatch } from './match-frame.js';
import type { CompiledFailure, CompiledPack } from './pack-types.js';
import type { ParsedFrame } from './parse-line.js';
import { bestCandidate, fromException, fromRule, type Candidate } from './root-cause.js';
import type { RunState } from './run-state.js';
import type { TracebackException } from './traceback.js';

/** Lines after an exception that may continue its message (wrapped text, pydantic details). */
const CONTINUATION_LINES = 3;

export interface Weighing {
  run: RunState;
  pack: CompiledPack;
  /** Order of candidates across the whole log: the earlier one wins a tie. */
  nextSeq: () => number;
}

/** Records candidates for this frame; returns warnings for non-fatal findings. */
export function weighFailures(w: Weighing, match: FrameMatch, line: LogLine, raised: TracebackException | undefined): ClassifierEvent[] {
  const { run } = w;
  const events: ClassifierEvent[] = [];
  const evidence = evidenceOf(match.frame, line);
  let namedCause: Candidate | undefined;
  /** A rule that reads this line as a bare wrapper ("see root cause above"). */
  let wrapper: Candidate | undefined;
  let fatal = false;
  let final = false;
  for (const hit of match.failures) {
    const candidate = fromRule(hit.rule, hit.groups, [evidence], w.nextSeq());
    run.candidates.push(candidate);
    if (hit.rule.role === 'cause') {
      namedCause ??= candidate;
    } else {
      run.symptoms.push(evidence);
      if (candidate.tier === 2) run.lastSymptom = { candidate, lineNo: line.lineNo };
      if (candidate.tier === 4) wrapper ??= candidate;
    }
    fatal ||= hit.rule.fatal;
    final ||= hit.rule.final;
    if (!hit.rule.fatal) events.push({ type: 'warning', at: line.at, line, rule: hit.rule.id, message: candidate.message, cause: hit.rule.cause });
  }
  continueMessage(run, match, evidence);
  const exception = match.benign ? undefined : raised;
  if (exception) {
    const lines = exception.evidence.map((text) => (text === match.frame.text ? evidence : { ...evidence, text }));
    if (!namedCause) {
      const byFrame = w.pack.frameFailures.find((rule) => raisedIn(rule, exception) && rule.regex.test(match.frame.body));
      if (byFrame) {
        namedCause = fromRule(byFrame, {}, lines, w.nextSeq());
        run.candidates.push(namedCause);
        fatal ||= byFrame.fatal;
      }
    }
    if (namedCause) namedCause.evidence = lines;
    // An exception that is itself the wrapper (`RuntimeError: Engine core initialization failed.
    // See root cause above`) is no unknown cause: it stays the wrapper it says it is.
    else if (wrapper) wrapper.evidence = lines;
    else addUnnamedException(w, exception, lines);
    if (exception.uncaught) run.uncaught ??= { at: line.at, line };
  }
  if (fatal) {
    run.pendingReady = undefined; // a held ready line is retracted
    run.failing ??= { at: line.at, line, final: false };
    run.failing.final ||= final;
  }
  return events;
}

/** A fatal blow was seen and the best candidate names its cause outright: nothing later can beat it. */
export function failureIsSettled(run: RunState): boolean {
  if (!run.failing) return false;
  return bestCandidate(run.candidates)?.tier === 0;
}

function addUnnamedException(w: Weighing, exception: TracebackException, lines: Evidence[]): void {
  const { run } = w;
  if (exception.chained === 'handling' && run.lastGenericIndex !== undefined) run.candidates[run.lastGenericIndex]!.superseded = true;
  const generic = fromException(exception.text, lines, w.nextSeq());
  // `raise X from cause`: the earlier exception is the cause, this one wraps it.
  if (exception.chained === 'cause' && run.lastGenericIndex !== undefined) generic.superseded = true;
  // A wrapper that introduced this traceback ("warmup error: Traceback ...") names the cause;
  // the exception that closes the traceback is its evidence.
  const opener = run.lastSymptom;
  const start = run.tracebacks.startLine;
  if (opener && !opener.used && opener.lineNo >= start - 1 && opener.lineNo <= start) {
    opener.used = true;
    opener.candidate.superseded = true;
    generic.tier = opener.candidate.tier;
    generic.cause = opener.candidate.cause;
    generic.ruleId = opener.candidate.ruleId;
    generic.message = `${opener.candidate.message}: ${exception.text.trim().slice(0, 200)}`;
    generic.hint = opener.candidate.hint;
  }
  run.lastGenericIndex = run.candidates.push(generic) - 1;
  run.continuation = { candidate: generic, left: CONTINUATION_LINES };
}

/** An exception message wrapped over the next few raw lines belongs to its evidence. */
function continueMessage(run: RunState, match: FrameMatch, evidence: Evidence): void {
  if (match.failures.length === 0 && run.continuation && !match.frame.logged && run.continuation.left-- > 0) {
    run.continuation.candidate.evidence.push(evidence);
  } else {
    run.continuation = undefined;
  }
}

function raisedIn(rule: CompiledFailure, exception: TracebackException): boolean {
  if (rule.inFrame && !rule.inFrame.test(exception.frameFile ?? '')) return false;
  if (rule.inTraceback && !exception.frameFiles.some((file) => rule.inTraceback!.test(file))) return false;
  return true;
}

function evidenceOf(frame: ParsedFrame, line: LogLine): Evidence {
  const evidence: Evidence = { ...line };
  if (frame.rank) evidence.rank = frame.rank;
  if (frame.proc) evidence.proc = frame.proc;
  return evidence;
}
