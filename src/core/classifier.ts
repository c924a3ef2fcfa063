/**
 * The classifier: a pure state machine over log frames. `feed(line, now)` and `tick(now)` return
 * events; the clock is always an argument, so replay (log time) and live watching (wall time)
 * run the very same code.
 */
import type { Budget, ClassifierEvent, Evidence, LogLine, Verdict } from './events.js';
import { guardFrames } from './line-guard.js';
import { matchFrame, type FrameMatch, type ProgressHit } from './match-frame.js';
import type { CompiledFailure, CompiledPack } from './pack-types.js';
import type { TracebackException } from './traceback.js';
import { parseFrame, type ParsedFrame } from './parse-line.js';
import { bestCandidate, fromException, fromRule, type Candidate } from './root-cause.js';
import { newRun, type RunState } from './run-state.js';
import { budgetFor, type BudgetOptions } from './budgets.js';
import type { Stage, VerdictKind } from './vocabulary.js';

export interface ClassifierOptions extends BudgetOptions {
  /** Quiet time after an uncaught Python exception before the start is called failed. */
  uncaughtSettleMs?: number;
}

const DEFAULT_UNCAUGHT_SETTLE_MS = 30_000;
/** After a line saying the server is exiting, the last words (an exit code) follow within this. */
const FINAL_SETTLE_MS = 3_000;
/** Lines after an exception that may continue its message (wrapped text, pydantic details). */
const CONTINUATION_LINES = 3;

export class Classifier {
  private run: RunState = newRun();
  private lineNo = 0;
  private seq = 0;

  constructor(
    readonly pack: CompiledPack,
    private readonly options: ClassifierOptions = {},
  ) {}

  /** The current run, read-only, for status lines. */
  get state(): Readonly<RunState> {
    return this.run;
  }

  get verdict(): Verdict | undefined {
    return this.run.verdict;
  }

  /** Feeds one raw physical line (its `\r` frames, colour codes and all). */
  feed(line: string, now: number, lineNo = this.lineNo + 1): ClassifierEvent[] {
    const events: ClassifierEvent[] = [];
    for (const text of guardFrames(line)) {
      const frame = parseFrame(text, this.pack.prefixes);
      events.push(...this.tick(now), ...this.feedMatch(matchFrame(this.pack, frame), now, lineNo));
    }
    return events;
  }

  /** Parses a guarded frame with this classifier's pack (for drivers that need the timestamp first). */
  parse(text: string): ParsedFrame {
    return parseFrame(text, this.pack.prefixes);
  }

  match(frame: ParsedFrame): FrameMatch {
    return matchFrame(this.pack, frame);
  }

  /** Applies one matched frame at log or wall time `now`. */
  feedMatch(match: FrameMatch, now: number, lineNo: number): ClassifierEvent[] {
    this.lineNo = lineNo;
    const frame = match.frame;
    if (frame.body.trim() === '') return [];
    const run = this.run;
    const line: LogLine = { lineNo, text: frame.text, at: now };
    if (match.marker?.rule.restart && (run.progressed || run.verdict)) {
      this.run = newRun();
      const restart: ClassifierEvent = { type: 'restart', at: now, line, rule: match.marker.rule.id };
      return [restart, ...this.feedMatch(match, now, lineNo)];
    }
    run.startedAt ??= now;
    if (run.verdict) return this.afterVerdict(match, line);
    run.lastLine = line;
    // Silence is measured from the last line that was not a heartbeat or a bar that did not move.
    const stuckBar = match.progress !== undefined && run.barPositions.get(match.progress.key) === match.progress.current;
    if (!match.heartbeat && !stuckBar) run.lastActivityAt = now;
    const exception = run.tracebacks.push(frame, lineNo);
    // A traceback's source lines quote messages (`raise RuntimeError("NCCL error")`): no rule reads them.
    if (run.tracebacks.role === 'code') return [];

    const events: ClassifierEvent[] = [];
    this.weighFailures(match, line, exception, events);
    if (this.followStages(match, line, events)) {
      run.heartbeats.clear();
      run.uncaught = undefined;
    }
    if (run.verdict) return events;
    this.followReady(match, line, now, events);
    this.followHeartbeat(match, line, now, events);
    if (!run.verdict && run.failing && this.failureIsSettled()) events.push(this.decideFailure(now, line));
    return events;
  }

  /** Lets time pass: held verdicts settle, stalls are found. */
  tick(now: number): ClassifierEvent[] {
    const run = this.run;
    if (run.verdict || run.startedAt === undefined) return [];
    if (run.pendingReady && now - run.pendingReady.at >= run.pendingReady.holdMs) {
      return [this.decideReady(run.pendingReady.at + run.pendingReady.holdMs, run.pendingReady.line)];
    }
    const settle = run.failing?.final ? Math.min(FINAL_SETTLE_MS, this.pack.settleMs) : this.pack.settleMs;
    if (run.failing && now - run.failing.at >= settle) {
      return [this.decideFailure(run.failing.at + settle)];
    }
    const uncaughtSettle = this.options.uncaughtSettleMs ?? DEFAULT_UNCAUGHT_SETTLE_MS;
    if (run.uncaught && now - Math.max(run.uncaught.at, run.lastActivityAt ?? 0) >= uncaughtSettle) {
      return [this.decideFailure(now)];
    }
    const budget = this.currentBudget();
    const since = run.lastActivityAt ?? run.startedAt;
    if (now - since > budget.ms) return [this.decideStall(since + budget.ms, budget, 'silence')];
    return [];
  }

  /** The input ended (end of file, closed pipe): settle what can be settled, else `incomplete`. */
  end(now: number): ClassifierEvent[] {
    const run = this.run;
    if (run.verdict) return [];
    if (run.pendingReady) return [this.decideReady(now, run.pendingReady.line)];
    if (run.failing || run.uncaught) return [this.decideFailure(now)];
    return [{ type: 'verdict', verdict: this.settle('incomplete', now, 'the input ended before any verdict') }];
  }

  /** The budget that applies to the current stage, and where it came from. */
  currentBudget(): Budget {
    return budgetFor(this.pack, this.run.stage, this.options);
  }

  private afterVerdict(match: FrameMatch, line: LogLine): ClassifierEvent[] {
    if (this.run.verdict?.verdict !== 'ready') return [];
    return match.failures
      .filter((hit) => hit.rule.fatal)
      .slice(0, 1)
      .map((hit) => ({ type: 'after-ready-failure', at: line.at, line, rule: hit.rule.id, cause: hit.rule.cause, message: hit.rule.message }));
  }

  private weighFailures(match: FrameMatch, line: LogLine, raised: TracebackException | undefined, events: ClassifierEvent[]): void {
    const run = this.run;
    const evidence = this.evidenceOf(match.frame, line);
    const exception = match.benign ? undefined : raised;
    let namedCause: Candidate | undefined;
    let fatal = false;
    let final = false;
    for (const hit of match.failures) {
      const candidate = fromRule(hit.rule, hit.groups, [evidence], this.seq++);
      run.candidates.push(candidate);
      if (hit.rule.role === 'cause') namedCause ??= candidate;
      else {
        run.symptoms.push(evidence);
        if (candidate.tier === 2) run.lastSymptom = { candidate, lineNo: line.lineNo };
      }
      fatal ||= hit.rule.fatal;
      final ||= hit.rule.final;
      if (!hit.rule.fatal) events.push({ type: 'warning', at: line.at, line, rule: hit.rule.id, message: candidate.message, cause: hit.rule.cause });
    }
    if (match.failures.length === 0 && run.continuation && !match.frame.logged && run.continuation.left-- > 0) {
      run.continuation.candidate.evidence.push(evidence);
    } else {
      run.continuation = undefined;
    }
    if (exception) {
      const lines = exception.evidence.map((text) => (text === match.frame.text ? evidence : { ...evidence, text }));
      if (!namedCause) {
        const byFrame = this.pack.frameFailures.find((rule) => raisedIn(rule, exception) && rule.regex.test(match.frame.body));
        if (byFrame) {
          namedCause = fromRule(byFrame, {}, lines, this.seq++);
          run.candidates.push(namedCause);
          fatal ||= byFrame.fatal;
        }
      }
      if (namedCause) {
        namedCause.evidence = lines;
      } else {
        if (exception.chained === 'handling' && run.lastGenericIndex !== undefined) run.candidates[run.lastGenericIndex]!.superseded = true;
        const generic = fromException(exception.text, lines, this.seq++);
        // `raise X from cause`: the earlier exception is the cause, this one wraps it.
        if (exception.chained === 'cause' && run.lastGenericIndex !== undefined) generic.superseded = true;
        // A wrapper that introduced this traceback ("warmup error: Traceback ...") names the
        // cause; the exception that closes the traceback is its evidence.
        const opener = run.lastSymptom;
        if (opener && !opener.used && opener.lineNo >= run.tracebacks.startLine - 1 && opener.lineNo <= run.tracebacks.startLine) {
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
      if (exception.uncaught) run.uncaught ??= { at: line.at, line };
    }
    if (fatal) {
      if (run.pendingReady) run.pendingReady = undefined; // the ready line was retracted
      run.failing ??= { at: line.at, line, final: false };
      run.failing.final ||= final;
    }
  }

  private failureIsSettled(): boolean {
    const failing = this.run.failing;
    if (!failing) return false;
    const best = bestCandidate(this.run.candidates);
    return best !== undefined && best.tier === 0;
  }

  private followStages(match: FrameMatch, line: LogLine, events: ClassifierEvent[]): boolean {
    let moved = false;
    if (match.marker) {
      const { rule } = match.marker;
      moved = this.enterStage(rule.stage, rule.id, line, events, rule.reenterFrom) || moved;
      if (rule.stage !== 'launch') this.run.progressed = true;
    }
    if (match.progress) {
      moved = this.advanceProgress(match.progress, line, events) || moved;
    }
    return moved;
  }

  private enterStage(stage: Stage, rule: string, line: LogLine, events: ClassifierEvent[], reenterFrom?: Stage): boolean {
    const run = this.run;
    const rank = this.pack.stageRank;
    const current = rank[run.stage];
    const next = rank[stage];
    if (next === current) return false;
    const reentered = next < current;
    if (reentered && (reenterFrom === undefined || current < rank[reenterFrom])) return false;
    events.push({ type: 'stage', stage, from: run.stage, at: line.at, line, rule, reentered });
    run.stage = stage;
    run.stageSince = line.at;
    if (stage !== 'launch') run.progressed = true;
    return true;
  }

  private advanceProgress(hit: ProgressHit, line: LogLine, events: ClassifierEvent[]): boolean {
    const run = this.run;
    if (hit.rule.stage && this.pack.stageRank[hit.rule.stage] > this.pack.stageRank[run.stage]) {
      this.enterStage(hit.rule.stage, hit.rule.id, line, events);
    }
    const previous = run.barPositions.get(hit.key);
    run.barPositions.set(hit.key, hit.current);
    if (previous === hit.current) return false;
    run.progress = { rule: hit.rule.id, unit: hit.rule.unit, current: hit.current, total: hit.total, percent: hit.percent, label: hit.groups.label };
    events.push({ type: 'progress', stage: run.stage, at: line.at, line, progress: run.progress });
    return true;
  }

  private followReady(match: FrameMatch, line: LogLine, now: number, events: ClassifierEvent[]): void {
    const run = this.run;
    if (run.pendingReady && match.confirmsReady) {
      events.push(this.decideReady(now, run.pendingReady.line));
      return;
    }
    if (!match.ready || run.failing) return;
    const { rule } = match.ready;
    if (rule.holdMs > 0) {
      run.pendingReady ??= { at: now, holdMs: rule.holdMs, line, rule: rule.id };
    } else {
      events.push(this.decideReady(now, line));
    }
  }

  private followHeartbeat(match: FrameMatch, line: LogLine, now: number, events: ClassifierEvent[]): void {
    const run = this.run;
    if (!match.heartbeat || run.verdict) return;
    const { rule } = match.heartbeat;
    const count = (run.heartbeats.get(rule.id) ?? 0) + 1;
    run.heartbeats.set(rule.id, count);
    if (rule.stallAfter !== undefined && count >= rule.stallAfter) {
      const budget: Budget = { ms: 0, source: 'server', detail: `${rule.id}: the server reported it ${count} time(s) with no progress` };
      events.push(this.decideStall(now, budget, 'server', line));
    }
  }

  private decideReady(at: number, line: LogLine): ClassifierEvent {
    const run = this.run;
    run.pendingReady = undefined;
    if (run.stage !== 'ready') {
      run.stage = 'ready';
      run.stageSince = at;
    }
    const verdict = this.settle('ready', at, 'the server printed its ready line');
    verdict.decidedBy = line;
    return { type: 'verdict', verdict };
  }

  private decideFailure(at: number, line?: LogLine): ClassifierEvent {
    const run = this.run;
    const best = bestCandidate(run.candidates);
    const verdict = this.settle('failed', at, best ? `root cause: ${best.message}` : 'the server reported a fatal error');
    verdict.decidedBy = line ?? run.failing?.line ?? run.uncaught?.line;
    verdict.cause = best?.cause ?? 'unknown';
    verdict.rule = best?.ruleId;
    verdict.message = best?.message;
    verdict.hint = best?.hint;
    verdict.evidence = best?.evidence ?? [];
    verdict.rank = verdict.evidence[0]?.rank;
    verdict.proc = verdict.evidence[0]?.proc;
    verdict.symptoms = run.symptoms.filter((symptom) => !verdict.evidence.some((e) => e.lineNo === symptom.lineNo));
    return { type: 'verdict', verdict };
  }

  private decideStall(at: number, budget: Budget, why: 'silence' | 'server', line?: LogLine): ClassifierEvent {
    const run = this.run;
    const since = run.lastActivityAt ?? run.startedAt ?? at;
    const reason =
      why === 'silence'
        ? `no progress in stage ${run.stage} for longer than its budget`
        : `the server itself reports a hang in stage ${run.stage}`;
    const verdict = this.settle('stalled', at, reason);
    verdict.budget = budget;
    verdict.silentMs = at - since;
    verdict.lastLine = run.lastLine;
    verdict.decidedBy = line;
    return { type: 'verdict', verdict };
  }

  private settle(kind: VerdictKind, at: number, reason: string): Verdict {
    const run = this.run;
    const verdict: Verdict = {
      verdict: kind,
      stage: run.stage,
      at,
      elapsedMs: at - (run.startedAt ?? at),
      reason,
      evidence: [],
      symptoms: [],
    };
    run.verdict = verdict;
    return verdict;
  }

  private evidenceOf(frame: ParsedFrame, line: LogLine): Evidence {
    const evidence: Evidence = { ...line };
    if (frame.rank) evidence.rank = frame.rank;
    if (frame.proc) evidence.proc = frame.proc;
    return evidence;
  }
}

function raisedIn(rule: CompiledFailure, exception: TracebackException): boolean {
  if (rule.inFrame && !rule.inFrame.test(exception.frameFile ?? '')) return false;
  if (rule.inTraceback && !exception.frameFiles.some((file) => rule.inTraceback!.test(file))) return false;
  return true;
}
