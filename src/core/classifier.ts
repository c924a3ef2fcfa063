/**
 * The classifier: a pure state machine over log frames. `feed(line, now)` and `tick(now)` return
 * events; the clock is always an argument, so replay (log time) and live watching (wall time)
 * run the very same code.
 */
import { BarTemplates } from './bar-templates.js';
import { budgetFor, budgetMsFor, type BudgetOptions } from './budgets.js';
import type { Budget, ClassifierEvent, LogLine, Verdict } from './events.js';
import { KnownBars } from './known-bars.js';
import { guardFrames } from './line-guard.js';
import { matchFrame } from './match-frame.js';
import { lineMessage } from './message-catalog.js';
import type { CompiledPack } from './pack-types.js';
import { parseFrame } from './parse-line.js';
import type { QuietScope } from './prefilter.js';
import { acts, actsAfterVerdict, AFTER_VERDICT, FOLLOWERS, IDLE_KINDS, loneBar, redrawn, type FollowStep, type FrameMatch, type RegisteredKind } from './rule-kinds.js';
import { newRun, type RunState } from './run-state.js';
import type { TracebackException } from './traceback.js';
import { failedVerdict, incompleteVerdict, readyVerdict, stalledVerdict } from './verdicts.js';
import { failureIsSettled } from './weigh-failures.js';

export interface ClassifierOptions extends BudgetOptions {
  /** Quiet time after an uncaught Python exception before the start is called failed. */
  uncaughtSettleMs?: number;
  /** Sees each matched frame once it is applied (`explain`); the classification is unchanged. */
  observer?: FrameObserver;
}

/** What one applied frame did: the run before and after it (a new one after a restart), and its events. */
export interface FrameReport {
  match: FrameMatch;
  now: number;
  lineNo: number;
  before: Readonly<RunState>;
  after: Readonly<RunState>;
  /** How many root-cause candidates the run before held when the frame came in. */
  candidatesBefore: number;
  hadVerdict: boolean;
  events: readonly ClassifierEvent[];
}

export interface FrameObserver {
  fed(report: FrameReport): void;
}

const DEFAULT_UNCAUGHT_SETTLE_MS = 30_000;
/** tqdm's default `mininterval` is 0.1 s: a bar drawn faster than this is a flood, read this often. */
const BAR_READS_PER_SECOND = 10;
/** Budgets shorter than this could run out between two lines of one read (see `quietScope`). */
const QUIET_MIN_BUDGET_MS = 1_000;
/** After a line saying the server is exiting, the last words (an exit code) follow within this. */
const FINAL_SETTLE_MS = 3_000;

/** The log clock as a classifier's bars see it (Timeline): whether a bar's frame would move it, and a number that changes whenever that answer may. */
export interface BarClock {
  moves(key: string, elapsedMs: number): boolean;
  readonly clockEpoch: number;
}

export class Classifier {
  private run: RunState = newRun();
  /**
   * The last redrawn frame read (a progress bar), and what it matched: tqdm redraws the very same
   * frame many times (its elapsed time and rate change once a second, not per frame), and the
   * same text parses and matches the same way (both are pure), so a repeat skips the rule cascade.
   * Two fields, not an object: nothing is allocated per frame to remember it.
   */
  private lastText: string | undefined;
  private lastMatch: FrameMatch | undefined;
  private step: FollowStep | undefined;
  /** The bars read so far: a later frame of one is recognised without the rules (known-bars.ts). */
  private readonly bars = new KnownBars();
  /** What the rules matched in each bar's frame read last: its later frames are matched from it (bar-templates.ts). */
  private readonly templates = new BarTemplates();
  private lineNo = 0;
  /** Changes whenever an answer of `idleBarFrame` may have (see `idleEpoch`), and what it was given for. */
  private idleEpochNow = nextIdleEpoch();
  private readonly idleInputs: { run: RunState | undefined; barMoves: number; barsVersion: number; scope: QuietScope | undefined | null; clock: number } = { run: undefined, barMoves: -1, barsVersion: -1, scope: null, clock: -1 };
  private barClock: BarClock | undefined;
  /** quietScope's answer since the last frame applied or verdict given (null: to be asked). */
  private scopeMemo: QuietScope | undefined | null = null;
  private seq = 0;
  private readonly nextSeq = (): number => this.seq++;

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

  /** Feeds one raw physical line (its `\r` frames, colour codes and all), read from `stream` when the log has several. */
  feed(line: string, now: number, lineNo = this.lineNo + 1, stream?: string): ClassifierEvent[] {
    const events: ClassifierEvent[] = [];
    for (const text of guardFrames(line)) events.push(...this.tick(now), ...this.feedMatch(this.read(text), now, lineNo, stream));
    return events;
  }

  /**
   * Whether reading the physical line `text` now would change no more than a line without any
   * rule's literal does (Session.skippable). Before a verdict the caller has made sure it holds
   * no traceback cue (after one, tracebacks are not followed).
   *  - Before a verdict, while quiet lines may be skipped at all: one frame that the guard leaves
   *    as it is, without a timestamp, that no rule but a benign one matches (it sets the run's
   *    last line and the time of its last activity, as a quiet line does).
   *  - After a verdict: no frame of it starts a new run or, after ready, is a fatal failure
   *    (`actsAfterVerdict`): then it moves the log clock at most, as a quiet line would.
   * Either way the answer depends on nothing but the text, the pack and the scope (parsing and
   * matching are pure; after a verdict no traceback or timer is followed), so a reader may
   * remember it for a text it meets again while the scope stays the same.
   */
  readonly quietText = (text: string): boolean => {
    const scope = this.quietScope();
    if (scope === undefined) return false;
    if (scope !== 'beforeVerdict') {
      const ready = scope === 'afterReady';
      for (const frame of guardFrames(text)) if (actsAfterVerdict(this.read(frame), ready)) return false;
      return true;
    }
    const frames = guardFrames(text);
    if (frames.length !== 1 || frames[0] !== text) return false;
    const match = this.read(text);
    return !match.frame.time && !acts(match) && lineMessage(this.pack.inference.messages, match.frame.body, match.frame.level) === undefined;
  };

  /**
   * Parses and matches one guarded frame (a repeated frame from memory: see `lastText`; a known
   * bar's frame that moved only its elapsed time, from the bar's template: bar-templates.ts).
   */
  read(text: string): FrameMatch {
    if (this.lastMatch !== undefined && this.lastText === text) return this.lastMatch;
    // A template needs the `<` after the elapsed time: a line without one is not looked at.
    const known = this.bars.size > 0 && text.includes('<') ? this.bars.recognize(text, 0, text.length) : undefined;
    const match = (known && this.templates.read(known, text)) ?? matchFrame(this.pack, parseFrame(text, this.pack.prefixes));
    if (redrawn(match)) {
      this.lastText = text;
      this.lastMatch = match;
      const hit = known === undefined ? loneBar(match) : undefined;
      if (hit) this.bars.learn(text, hit, hit.countersAt);
      const bar = known ?? (hit && this.bars.recognize(text, 0, text.length));
      if (bar && loneBar(match)) this.templates.remember(bar, text, match);
    }
    return match;
  }

  /**
   * Whether the frame `source[start, end)` (a guarded frame, or a raw line's bytes) may go unread:
   * a frame of a bar already read, of the same rank (known-bars.ts finds it without the rules,
   * allocating nothing), that moved nothing but its rate and time left, or its count more often
   * than tqdm draws by default (10 frames a second of the bar's own elapsed time). So a rank's
   * bar is read when its elapsed second changes and the log clock would follow it (`barClock`:
   * of 8 ranks' bars moving to the next second, most often only the first moves the clock), when
   * it starts over or completes, and at each step up to that rate: every progress a real bar
   * shows, a bounded number of reads however fast a flood redraws it. Unread, it would have
   * changed no more than the run's last line (and the second its position was read at, which
   * only this function reads). Never while the run cannot skip a line (a verdict waits on a
   * timer, a traceback is open: `quietScope`) or `explain` watches.
   */
  readonly idleBarFrame = (source: string | Uint8Array, start: number, end: number): boolean => {
    if (this.bars.size === 0 || this.options.observer !== undefined) return false;
    const bar = this.bars.recognize(source, start, end);
    if (bar === undefined || this.quietScope() === undefined) return false;
    const run = this.run;
    const key = bar.anonymous ? (run.barRanks.get(bar.bar) ?? bar.key) : bar.key;
    const seen = run.barPositions.get(key);
    if (seen === undefined) return false;
    const { current, elapsedS } = this.bars.reading;
    // Only its second moved (or it stays at 0, where the clock takes its start again): unread
    // when the clock would not move (or the start is the same).
    if (current === seen.current && seen.elapsedS >= 0 && (elapsedS > seen.elapsedS || (elapsedS === 0 && seen.elapsedS === 0))) return this.barClock?.moves(key, elapsedS * 1000) === false;
    if (elapsedS !== seen.elapsedS || elapsedS === 0 || current < seen.current) return false;
    return current === seen.current || (elapsedS >= 0 && seen.reads >= BAR_READS_PER_SECOND && current !== bar.total);
  };

  /** How the bars' elapsed times fall on the log clock, from the timeline that drives this classifier (see idleBarFrame). */
  followClock(clock: BarClock): void {
    this.barClock = clock;
  }

  /** Whether the frame `source[start, end)` is a frame of a bar already read, whatever it moved (Skippable.barFrame). */
  readonly knownBarFrame = (source: string | Uint8Array, start: number, end: number): boolean => this.bars.recognize(source, start, end) !== undefined;

  /** An unread bar frame (`idleBarFrame`) was the last of its line: it is the run's last line. */
  passBarFrame(text: string, now: number, lineNo: number): void {
    this.lineNo = lineNo;
    if (this.run.verdict === undefined) this.run.lastLine = { lineNo, text, at: now };
  }

  /**
   * Applies one matched frame at log or wall time `now`. `stream` names the output it was read
   * from when the log merges several (`run`: stdout and stderr), whose tracebacks interleave.
   */
  feedMatch(match: FrameMatch, now: number, lineNo: number, stream?: string): ClassifierEvent[] {
    const events = this.applyObserved(match, now, lineNo, stream);
    // Whatever the frame changed, quietScope is asked afresh after it.
    this.scopeMemo = null;
    return events;
  }

  private applyObserved(match: FrameMatch, now: number, lineNo: number, stream: string | undefined): ClassifierEvent[] {
    const observer = this.options.observer;
    if (!observer) return this.apply(match, now, lineNo, stream);
    const before = this.run;
    const candidatesBefore = before.candidates.length;
    const hadVerdict = before.verdict !== undefined;
    const events = this.apply(match, now, lineNo, stream);
    observer.fed({ match, now, lineNo, before, after: this.run, candidatesBefore, hadVerdict, events });
    return events;
  }

  private apply(match: FrameMatch, now: number, lineNo: number, stream: string | undefined): ClassifierEvent[] {
    this.lineNo = lineNo;
    const frame = match.frame;
    if (frame.body.trim() === '') return [];
    const run = this.run;
    const line: LogLine = { lineNo, text: frame.text, at: now };
    if (match.restart && (run.progressed || run.verdict)) {
      this.run = newRun();
      const restart: ClassifierEvent = { type: 'restart', at: now, line, rule: match.restart.id };
      return [restart, ...this.apply(match, now, lineNo, stream)];
    }
    run.startedAt ??= now;
    if (run.verdict) return this.follow(AFTER_VERDICT, match, line, now, undefined);
    run.lastLine = line;
    // Silence is measured from the last line that was a sign of life (not a heartbeat, not a bar that did not move).
    let idle = false;
    for (const kind of IDLE_KINDS) if (match.hits & kind.bit) idle ||= kind.idle!(match, run);
    if (!idle) run.lastActivityAt = now;
    const exception = run.tracebacks.push(frame, lineNo, stream);
    // A traceback's source lines quote messages (`raise RuntimeError("NCCL error")`): no rule reads them.
    if (run.tracebacks.role === 'code') return [];

    const events = this.follow(FOLLOWERS, match, line, now, exception);
    if (!run.verdict && failureIsSettled(run)) events.push(verdictEvent(failedVerdict(run, now, line)));
    return events;
  }

  /**
   * Hands the frame to the handler of each line kind that matched it (rule-kinds.ts), in turn,
   * until one gives a verdict; returns the frame's events. One step object serves every frame
   * (handlers keep none).
   */
  private follow(kinds: readonly RegisteredKind[], match: FrameMatch, line: LogLine, now: number, exception: TracebackException | undefined): ClassifierEvent[] {
    const step = (this.step ??= { run: this.run, pack: this.pack, match, line, now, exception, nextSeq: this.nextSeq, events: [] });
    step.run = this.run;
    step.match = match;
    step.line = line;
    step.now = now;
    step.exception = exception;
    step.events = [];
    const after = step.run.verdict !== undefined;
    for (const kind of kinds) {
      const hit = (match.hits & kind.bit) !== 0;
      if (after) {
        if (hit) kind.afterVerdict!(step);
      } else if (step.run.verdict) {
        break;
      } else if (hit || kind.everyFrame) {
        kind.follow!(step);
      }
    }
    return step.events;
  }

  /**
   * Stays the same while every answer of `idleBarFrame` stays the same: while what it reads does
   * (the bars known, the run and where its bars were read, `quietScope`, the log clock). A line
   * read that moved no bar, no clock and no scope (a log line between bursts of bars, an unread
   * bar frame read as the last line) leaves it. Unique among all classifiers, so a reader may
   * remember answers by it.
   */
  get idleEpoch(): number {
    const run = this.run;
    const scope = this.quietScope();
    const inputs = this.idleInputs;
    const clock = this.barClock?.clockEpoch ?? 0;
    if (inputs.run !== run || inputs.barMoves !== run.barMoves || inputs.barsVersion !== this.bars.version || inputs.scope !== scope || inputs.clock !== clock) {
      inputs.run = run;
      inputs.barMoves = run.barMoves;
      inputs.barsVersion = this.bars.version;
      inputs.scope = scope;
      inputs.clock = clock;
      this.idleEpochNow = nextIdleEpoch();
    }
    return this.idleEpochNow;
  }

  /** Lets time pass: held verdicts settle, stalls are found. */
  tick(now: number): ClassifierEvent[] {
    const events = this.dueEvents(now);
    // A verdict that fell due changes the scope.
    if (events !== NO_EVENTS) this.scopeMemo = null;
    return events;
  }

  private dueEvents(now: number): ClassifierEvent[] {
    const run = this.run;
    if (run.verdict || run.startedAt === undefined) return NO_EVENTS;
    if (run.pendingReady && now - run.pendingReady.at >= run.pendingReady.holdMs) {
      return [verdictEvent(readyVerdict(run, run.pendingReady.at + run.pendingReady.holdMs, run.pendingReady.line))];
    }
    const settle = run.failing?.final ? Math.min(FINAL_SETTLE_MS, this.pack.settleMs) : this.pack.settleMs;
    if (run.failing && now - run.failing.at >= settle) {
      return [verdictEvent(failedVerdict(run, run.failing.at + settle))];
    }
    const uncaughtSettle = this.options.uncaughtSettleMs ?? DEFAULT_UNCAUGHT_SETTLE_MS;
    const uncaughtSince = Math.max(run.uncaught?.at ?? 0, run.lastActivityAt ?? 0);
    if (run.uncaught && now - uncaughtSince >= uncaughtSettle) {
      return [verdictEvent(failedVerdict(run, uncaughtSince + uncaughtSettle))];
    }
    const since = run.lastActivityAt ?? run.startedAt;
    if (now - since <= budgetMsFor(this.pack, run.stage, this.options)) return NO_EVENTS;
    const budget = this.currentBudget();
    return [verdictEvent(stalledVerdict(run, since + budget.ms, budget, 'silence'))];
  }

  /** The input ended (end of file, closed pipe): settle what can be settled, else `incomplete`. */
  end(now: number): ClassifierEvent[] {
    this.scopeMemo = null;
    const run = this.run;
    if (run.verdict) return [];
    if (run.pendingReady) return [verdictEvent(readyVerdict(run, now, run.pendingReady.line))];
    // A finished input that ends on an exception (or a fatal line) with nothing after it: the end is the death.
    if (run.failing || run.uncaught || run.lastWords) return [verdictEvent(failedVerdict(run, now))];
    return [verdictEvent(incompleteVerdict(run, now))];
  }

  /**
   * Whether a quiet line, one without any literal of `QuietLiterals` in the returned scope (and
   * no new timestamp), may go unread: undefined when it may not. Such a line changes nothing but
   * `lastLine` and `lastActivityAt` before a verdict (so the last one before a line that matters
   * must still be fed), and nothing at all after one. Nothing may be skipped while a verdict
   * waits on a timer (held ready, settling failure: it must fall due on the line it would have),
   * inside a traceback or an exception's message, or with a budget short enough to run out
   * between two lines read together.
   */
  quietScope(): QuietScope | undefined {
    // Asked at every bar frame looked at between two lines read, which change nothing it reads.
    if (this.scopeMemo === null) this.scopeMemo = this.scopeNow();
    return this.scopeMemo;
  }

  private scopeNow(): QuietScope | undefined {
    const run = this.run;
    if (run.startedAt === undefined) return undefined;
    if (run.verdict) return run.verdict.verdict === 'ready' ? 'afterReady' : 'always';
    if (run.pendingReady || run.failing || run.continuation || !run.tracebacks.idle) return undefined;
    const uncaughtSettle = this.options.uncaughtSettleMs ?? DEFAULT_UNCAUGHT_SETTLE_MS;
    if (uncaughtSettle < QUIET_MIN_BUDGET_MS || budgetMsFor(this.pack, run.stage, this.options) < QUIET_MIN_BUDGET_MS) return undefined;
    return 'beforeVerdict';
  }

  /** The budget that applies to the current stage, and where it came from. */
  currentBudget(): Budget {
    return budgetFor(this.pack, this.run.stage, this.options);
  }
}

let idleEpochs = 0;
function nextIdleEpoch(): number {
  return ++idleEpochs;
}

/** What most ticks return: shared, and frozen so that a caller adding to it fails loudly. */
const NO_EVENTS = Object.freeze([]) as unknown as ClassifierEvent[];

function verdictEvent(verdict: Verdict): ClassifierEvent {
  return { type: 'verdict', verdict };
}
