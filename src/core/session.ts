/**
 * One log being classified: picks the family (given, or detected from the first lines while
 * they are held back), then drives a classifier through a timeline. Replay, `watch` and `run`
 * all go through this, so they cannot disagree.
 */
import { Classifier, type ClassifierOptions } from './classifier.js';
import { FamilyDetector } from './detect-family.js';
import type { ClassifierEvent, Verdict } from './events.js';
import type { CompiledPack } from './pack-types.js';
import type { Skippable } from './skippable.js';
import { Timeline } from './timeline.js';

export type SessionEvent = ClassifierEvent | { type: 'family'; family: string; detected: boolean; certain: boolean };

export interface SessionOptions {
  packs: readonly CompiledPack[];
  /** Pack name to use; omitted = detect from the first lines. */
  family?: string;
  classifier?: ClassifierOptions;
}

/** Live, a log that names no family is classified with the best guess after this much wall time. */
export const DETECT_WAIT_MS = 30_000;

interface Held {
  raw: string;
  lineNo?: number;
  wall?: number;
  live?: boolean;
}

export class Session {
  private timeline: Timeline | undefined;
  private readonly detector: FamilyDetector | undefined;
  private held: Held[] = [];
  private firstHeldWall: number | undefined;
  private lastVerdict: Verdict | undefined;

  constructor(private readonly options: SessionOptions) {
    if (options.family !== undefined) {
      const pack = options.packs.find((p) => p.name === options.family);
      if (!pack) throw new Error(`no pack named ${options.family}`);
      this.timeline = new Timeline(new Classifier(pack, options.classifier));
    } else {
      this.detector = new FamilyDetector(options.packs);
    }
  }

  get pack(): CompiledPack | undefined {
    return this.timeline?.classifier.pack;
  }

  get classifier(): Classifier | undefined {
    return this.timeline?.classifier;
  }

  /** The timeline once the family is known: read it, never push to it. */
  get currentTimeline(): Timeline | undefined {
    return this.timeline;
  }

  /** Which lines may be left unread now (core/skippable.ts); undefined before the family is known. */
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
    };
  }

  get now(): number {
    return this.timeline?.now ?? 0;
  }

  /** The latest verdict given (a later run in the same log may still replace it). */
  get verdict(): Verdict | undefined {
    return this.lastVerdict;
  }

  push(raw: string, where: { lineNo?: number; wall?: number; live?: boolean } = {}): SessionEvent[] {
    if (this.timeline) return this.track(this.timeline.push(raw, where));
    const decided = this.detector!.push(raw);
    this.held.push({ raw, ...where });
    this.firstHeldWall ??= where.wall;
    if (decided) return this.start(decided, true, true);
    if (this.detector!.exhausted) return this.startWithGuess();
    return [];
  }

  tick(when: { wall?: number; idleMs?: number } = {}): SessionEvent[] {
    if (this.timeline) return this.track(this.timeline.tick(when));
    // Held lines must not wait forever for a family marker: a stall has to be seen all the same.
    const waited = when.wall !== undefined && this.firstHeldWall !== undefined && when.wall - this.firstHeldWall >= DETECT_WAIT_MS;
    if (this.held.length === 0 || (!waited && when.idleMs === undefined)) return [];
    return [...this.startWithGuess(), ...this.track(this.timeline!.tick(when))];
  }

  end(): SessionEvent[] {
    const events = this.timeline ? [] : this.startWithGuess();
    return [...events, ...this.track(this.timeline!.end())];
  }

  private startWithGuess(): SessionEvent[] {
    const { pack, certain } = this.detector!.guess();
    return this.start(pack, true, certain);
  }

  private start(pack: CompiledPack, detected: boolean, certain: boolean): SessionEvent[] {
    this.timeline = new Timeline(new Classifier(pack, this.options.classifier));
    const events: SessionEvent[] = [{ type: 'family', family: pack.name, detected, certain }];
    for (const held of this.held) events.push(...this.track(this.timeline.push(held.raw, held)));
    this.held = [];
    return events;
  }

  private track(events: ClassifierEvent[]): SessionEvent[] {
    for (const event of events) {
      if (event.type === 'verdict') this.lastVerdict = event.verdict;
      if (event.type === 'restart') this.lastVerdict = undefined;
    }
    return events;
  }
}
