/**
 * One log being classified: picks the family (given, or detected from the first lines while
 * they are held back), then drives a classifier through a timeline. Replay, `watch` and `run`
 * all go through this, so they cannot disagree.
 *
 * A family is never guessed. When the lines show some clues but decide nothing, the log is
 * classified with the shared rules alone (torch, CUDA, NCCL, Python): no family's cause or hint
 * is given on a guess. When they show nothing of any family (another program's log), no
 * classifier runs: the lines wait for a first sign of a server, and the input ending without
 * one is said plainly, with no verdict.
 */
import { Classifier, type ClassifierOptions } from './classifier.js';
import { compilePack } from './compile-pack.js';
import { FamilyDetector } from './detect-family.js';
import type { ClassifierEvent, Verdict } from './events.js';
import { guardFrames } from './line-guard.js';
import type { CompiledPack } from './pack-types.js';
import type { Skippable } from './skippable.js';
import { Timeline } from './timeline.js';
import { StartFactsReader } from './start-facts.js';

export type SessionEvent = ClassifierEvent | { type: 'family'; family: string; detected: boolean; certain: boolean };

/**
 * Something that follows a session without being part of it (the start history, its progress
 * estimates): it sees every batch of events the session gives, then the line that gave them.
 */
export interface SessionObserver {
  events(events: readonly SessionEvent[], session: Session): void;
  /** After the events of a pushed line (what the line itself says, e.g. the start's facts). */
  line?(raw: string, session: Session, where: LineWhere): void;
}

/** Where a pushed line sits: its number, the wall time it arrived, whether it was written while we watched. */
export interface LineWhere {
  lineNo?: number;
  wall?: number;
  live?: boolean;
  /** The output it was read from, when the log merges several (`run`: `stdout`, `stderr`). */
  stream?: string;
}

export interface SessionOptions {
  packs: readonly CompiledPack[];
  /** Pack name to use; omitted = detect from the first lines. */
  family?: string;
  /** Read by the classifier at each tick: an observer may lend it budgets (learned ones) as they become known. */
  classifier?: ClassifierOptions;
  observers?: readonly SessionObserver[];
}

/** Live, a log that shows clues but no decision is classified with the shared rules after this much wall time. */
export const DETECT_WAIT_MS = 30_000;
/** Lines without any sign of a server kept for the classifier, should one show up: the latest ones. */
const HELD_WITHOUT_EVIDENCE = 400;

interface Held extends LineWhere {
  raw: string;
}

export class Session {
  private timeline: Timeline | undefined;
  private readonly detector: FamilyDetector | undefined;
  private held: Held[] = [];
  private heldCount = 0;
  private firstHeldWall: number | undefined;
  private lastVerdict: Verdict | undefined;
  private readonly following: SessionObserver[];
  /** The argument dumps of the packs in play: what a start's facts (model, TP) are read with. */
  readonly startFactsReader: StartFactsReader;

  constructor(private readonly options: SessionOptions) {
    this.startFactsReader = new StartFactsReader(options.packs);
    this.following = [...(options.observers ?? [])];
    if (options.family !== undefined) {
      const pack = options.packs.find((p) => p.name === options.family);
      if (!pack) throw new Error(`no pack named ${options.family}`);
      this.timeline = new Timeline(new Classifier(pack, options.classifier));
    } else {
      this.detector = new FamilyDetector(options.packs);
    }
  }

  /** The pack in use: a family's, or the shared rules' (`isShared`) while the family is not known. */
  get pack(): CompiledPack | undefined {
    return this.timeline?.classifier.pack;
  }

  get classifier(): Classifier | undefined {
    return this.timeline?.classifier;
  }

  /** The timeline once classifying began: read it, never push to it. */
  get currentTimeline(): Timeline | undefined {
    return this.timeline;
  }

  /** Which lines may be left unread now (core/skippable.ts); undefined before classifying began. */
  skippable(): Skippable | undefined {
    const timeline = this.timeline;
    if (!timeline) return undefined;
    const { classifier } = timeline;
    const { verdict, lastLine } = classifier.state;
    return {
      pack: classifier.pack,
      scope: classifier.quietScope(),
      verdict: verdict === undefined ? undefined : verdict.verdict === 'ready' ? 'ready' : 'other',
      clock: { run: timeline, epoch: timeline.clockEpoch, timedPrefix: timeline.timedPrefix },
      lastLineNo: lastLine?.lineNo,
      repeatsLastLine: timeline.repeatsLastLine,
      quietText: classifier.quietText,
      idleBar: classifier.idleBarFrame,
      barFrame: classifier.knownBarFrame,
      idleEpoch: classifier.idleEpoch,
    };
  }

  /** Where this log's time 0 sits on the clock of its timestamps (see LogClock.origin). */
  get logOrigin(): number | undefined {
    return this.timeline?.clock.origin;
  }

  get now(): number {
    return this.timeline?.now ?? 0;
  }

  /** Lines read while no classifier runs yet: none of them has said which server wrote the log. */
  get linesBeforeFamily(): number {
    return this.timeline ? 0 : this.heldCount;
  }

  /** The latest verdict given (a later run in the same log may still replace it). */
  get verdict(): Verdict | undefined {
    return this.lastVerdict;
  }

  /** Who follows this session's events (see SessionObserver). */
  get observers(): readonly SessionObserver[] {
    return this.following;
  }

  /** Follows this session from now on (a driver's own watcher, e.g. run's after-ready watch); returns the unfollow. */
  observe(observer: SessionObserver): () => void {
    this.following.push(observer);
    return () => {
      const at = this.following.indexOf(observer);
      if (at !== -1) this.following.splice(at, 1);
    };
  }

  push(raw: string, where: LineWhere = {}): SessionEvent[] {
    const events = this.tell(this.classify(raw, where));
    for (const observer of this.following) observer.line?.(raw, this, where);
    return events;
  }

  tick(when: { wall?: number; idleMs?: number } = {}): SessionEvent[] {
    return this.tell(this.idle(when));
  }

  end(): SessionEvent[] {
    if (!this.timeline && this.detector!.evidence === 'none') return this.tell(this.track([{ type: 'verdict', verdict: this.noServerVerdict() }]));
    const events = this.timeline ? [] : this.startShared();
    return this.tell([...events, ...this.track(this.timeline!.end())]);
  }

  private classify(raw: string, where: LineWhere): SessionEvent[] {
    if (this.timeline) return this.track(this.timeline.push(raw, where));
    const detector = this.detector!;
    const decided = detector.push(raw);
    this.hold({ raw, ...where });
    if (decided) return this.start(decided, true);
    if (detector.exhausted && detector.evidence === 'some') return this.startShared();
    return [];
  }

  private idle(when: { wall?: number; idleMs?: number }): SessionEvent[] {
    if (this.timeline) return this.track(this.timeline.tick(when));
    // Clues without a decision must not hold the lines forever: a stall has to be seen all the same.
    const waited = when.wall !== undefined && this.firstHeldWall !== undefined && when.wall - this.firstHeldWall >= DETECT_WAIT_MS;
    if (this.detector!.evidence !== 'some' || (!waited && when.idleMs === undefined)) return [];
    return [...this.startShared(), ...this.track(this.timeline!.tick(when))];
  }

  private tell(events: SessionEvent[]): SessionEvent[] {
    for (const observer of this.following) observer.events(events, this);
    return events;
  }

  private hold(held: Held): void {
    this.heldCount++;
    // Numbered now: the lines kept may not begin at the first.
    held.lineNo ??= this.heldCount;
    this.held.push(held);
    this.firstHeldWall ??= held.wall;
    // Another program's output can go on for ever: keep only the latest lines for a server that may start.
    if (this.detector!.evidence === 'none' && this.held.length > HELD_WITHOUT_EVIDENCE) this.held.shift();
  }

  /** The lines show clues but no family: the shared rules alone (none, for packs that include none). */
  private startShared(): SessionEvent[] {
    const shared = this.options.packs[0]?.shared ?? { ...compilePack([{ pack: 'shared', description: 'no shared rules' }]), isShared: true };
    return this.start(shared, false);
  }

  private start(pack: CompiledPack, certain: boolean): SessionEvent[] {
    this.timeline = new Timeline(new Classifier(pack, this.options.classifier));
    const events: SessionEvent[] = [{ type: 'family', family: pack.name, detected: true, certain }];
    for (const held of this.held) events.push(...this.track(this.timeline.push(held.raw, held)));
    this.held = [];
    return events;
  }

  private noServerVerdict(): Verdict {
    const last = this.held.at(-1);
    const families = this.options.packs.map((pack) => pack.name).join(', ');
    return {
      verdict: 'incomplete',
      stage: 'none',
      at: 0,
      elapsedMs: 0,
      reason: `nothing in the input was written by a server spinup knows (${families})`,
      evidence: [],
      symptoms: [],
      familyUnknown: 'no-evidence',
      linesRead: this.heldCount,
      lastLine: last ? { lineNo: last.lineNo ?? this.heldCount, text: guardFrames(last.raw).at(-1) ?? '', at: 0 } : undefined,
    };
  }

  private track(events: ClassifierEvent[]): SessionEvent[] {
    for (const event of events) {
      if (event.type === 'verdict') {
        if (this.pack?.isShared) event.verdict.familyUnknown = 'undecided';
        this.lastVerdict = event.verdict;
      }
      if (event.type === 'restart') this.lastVerdict = undefined;
    }
    return events;
  }
}
