/**
 * Turns the failure rules that matched a frame, and the exception a traceback closed on it,
 * into root-cause candidates; notes when the start has taken a fatal blow.
 */
import type { ClassifierEvent, Evidence, LogLine } from './events.js';
import type { FrameMatch } from './match-frame.js';
import type { CompiledFailure, CompiledPack } from './pack-types.js';
import type { ParsedFrame } from './parse-line.js';
import { continueMessage, isNativeError, readNativeLinesBefore, rememberNativeError, startContinuation } from './exception-words.js';
import { inferCause, isOpaque, symptomClass, type InferenceInput } from './infer-cause.js';
import { applyInference, bestCandidate, fromException, fromRule, TIER, tieWarnings, type Candidate } from './root-cause.js';
import type { RunState } from './run-state.js';
import { belowError } from './severity.js';
import { nameByMessage, weighLineMessage } from './source-messages.js';
import { isSuspect, sayWhenSuspect } from './suspect.js';
import type { TracebackException } from './traceback.js';

export interface Weighing {
  run: RunState;
  pack: CompiledPack;
  /** Order of candidates across the whole log: the earlier one wins a tie. */
  nextSeq: () => number;
}

/** Records candidates for this frame; adds warnings for non-fatal findings to `events`. */
export function weighFailures(w: Weighing, match: FrameMatch, line: LogLine, exception: TracebackException | undefined, events: ClassifierEvent[]): void {
  const { run } = w;
  const wasSuspect = isSuspect(run);
  const evidence = evidenceOf(match.frame, line);
  let namedCause: Candidate | undefined;
  /** A rule that reads this line as a bare wrapper ("see root cause above"). */
  let wrapper: Candidate | undefined;
  let fatal = false;
  let final = false;
  /** A fatal rule read a calm line: not decisive, but a death after it makes it the cause. */
  let calmFatal = false;
  // Nothing went wrong before this line: no failure rule, exception or wrapper (warnings aside).
  const firstInRun = !run.somethingWrong;
  const before = run.candidates.length;
  // A line logged below error (a caught exception logged as a WARNING): the process goes on.
  const calm = belowError(match.frame.level);
  // On a line a specific rule names, a catch-all rule (`fallback`) says nothing more.
  const specific = match.failures.some((hit) => hit.rule.role === 'cause' && !hit.rule.fallback);
  for (const hit of match.failures) {
    if (specific && hit.rule.fallback) continue;
    const candidate = fromRule(hit.rule, hit.groups, [evidence], w.nextSeq());
    if (hit.rule.fallback) nameByMessage(w.pack.inference, candidate, match.frame.body, exception?.className ?? '');
    run.candidates.push(candidate);
    if (hit.rule.role === 'cause') {
      namedCause ??= candidate;
    } else {
      run.symptoms.push(evidence);
      if (hit.rule.causeWhenFirst && firstInRun) namedAlone(candidate, hit.rule.causeWhenFirst);
      if (candidate.tier === TIER.wrapperWithCause) run.lastSymptom = { candidate, lineNo: line.lineNo };
      if (candidate.tier === TIER.wrapper) wrapper ??= candidate;
    }
    fatal ||= hit.rule.fatal && !calm;
    calmFatal ||= hit.rule.fatal && calm;
    final ||= hit.rule.final;
    if (!hit.rule.fatal || calm) events.push({ type: 'warning', at: line.at, line, rule: hit.rule.id, message: candidate.message, cause: hit.rule.cause });
  }
  continueMessage({ run, tables: w.pack.inference, match, evidence });
  if (match.failures.length === 0 && isNativeError(match.frame)) rememberNativeError(run, evidence);
  if (!exception && !fatal) weighLineMessage(w, match, evidence);
  if (exception) {
    const lines = exception.evidence.map((text) => (text === match.frame.text ? evidence : { ...evidence, text }));
    // A bare exception line belongs to the process whose line opened its traceback.
    for (const line of lines) if (line.rank === undefined && line.proc === undefined) Object.assign(line, definedTags(exception.openedBy));
    if (!namedCause) {
      const byFrame = w.pack.frameFailures.find((rule) => raisedIn(rule, exception) && rule.regex.test(match.frame.body));
      if (byFrame) {
        namedCause = fromRule(byFrame, {}, lines, w.nextSeq());
        run.candidates.push(namedCause);
        fatal ||= byFrame.fatal && !calm;
        calmFatal ||= byFrame.fatal && calm;
      }
    }
    if (namedCause) {
      namedCause.evidence = lines;
      namedCause.exception = true;
      joinNativeReport(run, namedCause);
    } else if (wrapper && !inferCause(w.pack.inference, { className: exception.className, words: exception.message, frameFile: exception.frameFile })) {
      // An exception that is itself the wrapper (`RuntimeError: Engine core initialization failed.
      // See root cause above`) is no unknown cause: it stays the wrapper it says it is, unless
      // its own words name a cause (`Capture cuda graph failed: CUDA out of memory`).
      wrapper.evidence = lines;
    } else {
      addUnnamedException(w, exception, lines, match.frame);
    }
    if (exception.uncaught) run.uncaught ??= { at: line.at, line };
    else if (!calm) run.lastWords ??= { at: line.at, line };
  }
  if (calm) for (const candidate of run.candidates.slice(before)) explainOnly(candidate);
  if (calmFatal) run.lastWords ??= { at: line.at, line };
  if (run.candidates.length > before) {
    const added = run.candidates.slice(before);
    tieWarnings(run.candidates, added, run.failingProcesses);
    run.somethingWrong ||= added.some((c) => c.tier !== TIER.warning && c.tier !== TIER.explains && c.tier !== TIER.untiedWarning);
  }
  if (fatal) {
    run.pendingReady = undefined; // a held ready line is retracted
    run.failing ??= { at: line.at, line, final: false };
    run.failing.final ||= final;
  }
  if (!wasSuspect) sayWhenSuspect(run, line, events);
}

/**
 * A candidate from a line logged below error (WARNING, INFO: a caught exception, a notice) is a
 * warning, whatever a rule makes of its words: it names the cause of a later exception with no
 * words of its own, never over one that has them, and never fails a start by itself.
 */
function explainOnly(candidate: Candidate): void {
  candidate.exception = false;
  if (candidate.tier >= TIER.explains) return;
  const says = candidate.cause !== 'crash' && candidate.cause !== 'unknown';
  candidate.tier = says ? TIER.explains : TIER.untiedWarning;
  if (says) candidate.explains = true;
}

/** A wrapper with nothing wrong before it (a bare `Killed`): the death itself is the evidence. */
function namedAlone(candidate: Candidate, cause: Candidate['cause']): void {
  candidate.tier = TIER.wrapperWithCause;
  candidate.cause = cause;
  candidate.message = `${candidate.message}, with no error before it`;
}

/**
 * A native line explained the failure first (an NCCL WARN: not fatal by itself) and the Python
 * exception it led to names the same cause: the last such line before the traceback is reported
 * with the exception.
 */
function joinNativeReport(run: RunState, named: Candidate): void {
  const start = run.tracebacks.startLine;
  const native = run.candidates.findLast(
    (c) => c !== named && !c.exception && (c.tier === TIER.warning || c.tier === TIER.explains || c.tier === TIER.untiedWarning) && c.cause === named.cause && (c.evidence[0]?.lineNo ?? start) < start,
  );
  if (native?.evidence[0]) named.evidence.push(native.evidence[0]);
}

/** A fatal blow was seen and the best candidate names its cause outright: nothing later can beat it. */
export function failureIsSettled(run: RunState): boolean {
  if (!run.failing) return false;
  return bestCandidate(run.candidates)?.tier === 0;
}

function addUnnamedException(w: Weighing, exception: TracebackException, lines: Evidence[], frame: ParsedFrame): void {
  const { run } = w;
  if (exception.chained === 'handling' && run.lastGenericIndex !== undefined) run.candidates[run.lastGenericIndex]!.superseded = true;
  const generic = fromException(exception.text, lines, w.nextSeq());
  const input: InferenceInput = { className: exception.className, words: exception.message, frameFile: exception.frameFile };
  const inferred = inferCause(w.pack.inference, input);
  if (inferred) applyInference(generic, inferred, exception.text);
  const peerDeath = inferred ? undefined : symptomClass(w.pack.inference, exception.className);
  if (peerDeath) {
    generic.tier = TIER.peerDeath;
    generic.peerDeath = peerDeath.id;
  }
  // `raise X from cause`: the earlier exception is the cause, this one wraps it.
  if (exception.chained === 'cause' && run.lastGenericIndex !== undefined) generic.superseded = true;
  // A wrapper that introduced this traceback ("warmup error: Traceback ...") names the cause;
  // the exception that closes the traceback is its evidence.
  const opener = run.lastSymptom;
  const start = run.tracebacks.startLine;
  if (opener && !opener.used && opener.lineNo >= start - 1 && opener.lineNo <= start) {
    opener.used = true;
    opener.candidate.superseded = true;
    generic.tier = TIER.inferred;
    generic.cause = opener.candidate.cause;
    generic.ruleId = opener.candidate.ruleId;
    generic.message = `${opener.candidate.message}: ${exception.text.trim().slice(0, 200)}`;
    generic.hint = opener.candidate.hint;
  }
  run.lastGenericIndex = run.candidates.push(generic) - 1;
  // Words on the lines that continue the message may still name the cause (if the opener did not).
  const reinfer = generic.tier === TIER.exception || inferred ? { input, text: exception.text } : undefined;
  startContinuation({ run, candidate: generic, frame, reinfer });
  if (isOpaque(exception.message)) readNativeLinesBefore({ run, tables: w.pack.inference, candidate: generic, startLine: run.tracebacks.startLine });
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

function definedTags(tags: { rank?: string; proc?: string }): { rank?: string; proc?: string } {
  const defined: { rank?: string; proc?: string } = {};
  if (tags.rank !== undefined) defined.rank = tags.rank;
  if (tags.proc !== undefined) defined.proc = tags.proc;
  return defined;
}

