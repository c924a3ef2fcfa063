/**
 * What the history keeps of a start, read off a session's events: the start facts, the time in
 * each stage, the progress rate, and what earlier starts on this host say to expect. It is no
 * part of the session: it observes it (SessionObserver), and lends it learned budgets through
 * the classifier options it hands the session (`lend`), updated as the family and the model
 * become known (the classifier reads them at each tick).
 *
 *   const tracker = new StartTracker({ memory });
 *   const session = new Session(tracker.lend({ packs, family }));
 */
import type { LoadProgress } from '../core/load-progress.js';
import type { ClassifierOptions } from '../core/classifier.js';
import { ProgressTracker, type ProgressEstimate } from '../core/eta.js';
import { budgetFor } from '../core/budgets.js';
import type { Budget, Verdict } from '../core/events.js';
import { stripAnsi } from '../core/line-guard.js';
import type { CompiledPack } from '../core/pack-types.js';
import { Session, type SessionEvent, type SessionObserver, type SessionOptions } from '../core/session.js';
import { mergeFacts, type StartFacts } from '../core/start-facts.js';
import type { Stage } from '../core/vocabulary.js';
import { fleetModel, type FleetFigures } from './fleet-queries.js';
import { emptyPlan, learnBudgets, type LearnedPlan, type StageExpectation } from './learn-budgets.js';
import { readyEta, type ReadyEta } from './ready-eta.js';
import { basisText, type LearnedJson } from './learned-basis.js';
import { StageClock } from './stage-clock.js';
import { RECORD_VERSION, type StartRecord } from './start-record.js';

export interface Memory {
  /** Earlier starts (read once, before this one). */
  records: readonly StartRecord[];
  host: string;
  /** Apply learned budgets (`--no-learn` turns this off; expectations are still shown). */
  learn: boolean;
  /** `--learn-from`: what the fleet's Prometheus answered (fleet-memory.ts). */
  fleet?: FleetMemory;
}

export interface FleetMemory {
  url: string;
  window: string;
  /** Its figures, when it answered; else why not (`problem`). */
  figures?: FleetFigures;
  problem?: string;
  /** Told once when the start's model turns out to have no READY start there (then this host, then the pack). */
  onMiss?: (text: string) => void;
}

export interface StartTrackerOptions {
  memory?: Memory;
  /** Stands in for the model when the log names none (a replayed fixture's file name). */
  fallbackModel?: string;
}

export class StartTracker implements SessionObserver {
  private load: StartRecord['load'];
  private facts: StartFacts = {};
  private clock = new StageClock();
  private progress = new ProgressTracker();
  private readonly estimates = new WeakMap<SessionEvent, ProgressEstimate>();
  private plan: LearnedPlan = emptyPlan();
  private fleetMissSaid = false;
  private planFor: { family: string | undefined; facts: StartFacts } | undefined;
  /** The options lent to the session's classifier: where learned budgets go. */
  private classifierOptions: ClassifierOptions = {};
  private pack: CompiledPack | undefined;

  constructor(private readonly options: StartTrackerOptions = {}) {}

  /** The session's options with this tracker observing it and lending it budgets (call once, for one session). */
  lend(session: SessionOptions): SessionOptions {
    this.classifierOptions = { ...session.classifier };
    // A family given up front is known before the first line: its budgets apply from the start.
    this.relearn(session.packs.find((p) => p.name === session.family));
    return { ...session, classifier: this.classifierOptions, observers: [...(session.observers ?? []), this] };
  }

  events(events: readonly SessionEvent[], session: Session): void {
    for (const event of events) {
      if (event.type === 'restart') this.facts = {};
      this.clock.observe(event, () => session.classifier?.state.startedAt);
      const estimate = this.progress.observe(event);
      if (estimate) this.estimates.set(event, estimate);
    }
    this.pack = session.pack;
  }

  line(raw: string, session: Session): void {
    const found = session.startFactsReader.read(stripAnsi(raw));
    if (found) this.facts = mergeFacts(this.facts, found);
    if (session.pack?.name !== this.planFor?.family || this.facts !== this.planFor?.facts) this.relearn(session.pack);
  }

  /** What the start is, as far as the log said so far. */
  get startFacts(): StartFacts {
    return this.facts;
  }

  get learnedPlan(): LearnedPlan {
    return this.plan;
  }

  /** What the learned figures rest on, in words and numbers (for /v1/status, `status` and the verdict). */
  get learned(): LearnedJson {
    const { basis } = this.plan;
    const fleet = this.options.memory?.fleet;
    return {
      source: basis.source,
      fleet_starts: basis.fleetStarts,
      local_starts: basis.localStarts,
      fleet_url: fleet?.url ?? null,
      text: basisText(basis, fleet),
    };
  }

  /** Rate and time left of the current stage's progress, counted down to `now`. */
  progressEstimate(now?: number): ProgressEstimate | undefined {
    return this.progress.estimate(now);
  }

  /** The estimate as of one progress event (for `--json`). */
  estimateFor(event: SessionEvent): ProgressEstimate | undefined {
    return this.estimates.get(event);
  }

  expectationFor(stage: Stage): StageExpectation | undefined {
    return this.plan.expectations[stage];
  }

  /** Time left to READY by the learned medians, the current stage having run `stageElapsedMs`. */
  readyEta(stage: Stage, stageElapsedMs: number): ReadyEta | undefined {
    return readyEta(this.plan.expectations, stage, stageElapsedMs);
  }

  /** The stall budget a stage gets in this start (pack, learned or `--stall`). */
  budgetOf(stage: Stage): Budget | undefined {
    return this.pack ? budgetFor(this.pack, stage, this.classifierOptions) : undefined;
  }

  /** A silent load's progress from the process tree: its last word goes into the record. */
  noteLoad(progress: LoadProgress): void {
    this.load = { read_bytes: progress.readBytes, total_bytes: progress.totalBytes };
  }

  /** The record of this start, once it has a verdict. */
  toRecord(params: { verdict: Verdict; host: string; when: Date; source: StartRecord['source']; log?: string }): StartRecord {
    const { verdict } = params;
    // A verdict decided beside the log (run: the process, its activity, --timeout) closes the last stage too;
    // one from the log already did.
    this.clock.observe({ type: 'verdict', verdict }, () => undefined);
    const model = this.facts.model ?? this.options.fallbackModel;
    const record: StartRecord = {
      v: RECORD_VERSION,
      when: params.when.toISOString(),
      host: params.host,
      source: params.source,
      log: params.log,
      family: this.pack && !this.pack.isShared ? this.pack.name : 'unknown',
      model,
      model_from: model === undefined ? undefined : this.facts.model !== undefined ? 'log' : 'log-name',
      tp: this.facts.tp,
      quantization: this.facts.quantization,
      speculative: this.facts.speculative,
      verdict: verdict.verdict,
      stage: verdict.stage,
      cause: verdict.cause,
      total_ms: verdict.elapsedMs,
      stages_ms: this.clock.snapshot(),
    };
    if (verdict.budget) record.budget = { ...verdict.budget };
    if (this.load) record.load = this.load.total_bytes === undefined ? { read_bytes: this.load.read_bytes } : { ...this.load };
    for (const key of Object.keys(record) as (keyof StartRecord)[]) if (record[key] === undefined) delete record[key];
    return record;
  }

  /** Budgets depend on the family and the facts: recomputed when either changes. */
  private relearn(pack: CompiledPack | undefined): void {
    const memory = this.options.memory;
    this.pack = pack;
    this.planFor = { family: pack?.name, facts: this.facts };
    // The shared rules speak for no family: nothing to learn from or for.
    if (!memory || !pack || pack.isShared) return;
    const facts: StartFacts = { ...this.facts, model: this.facts.model ?? this.options.fallbackModel };
    const fleet = fleetModel(memory.fleet?.figures, pack.name, facts.model);
    if (memory.fleet?.figures && !fleet && facts.model !== undefined && !this.fleetMissSaid) {
      this.fleetMissSaid = true;
      memory.fleet.onMiss?.(`the fleet at ${memory.fleet.url} has no READY start of ${pack.name} ${facts.model} over ${memory.fleet.window}`);
    }
    this.plan = learnBudgets({ records: memory.records, family: pack.name, host: memory.host, facts, pack, fleet: fleet && { ...fleet, window: memory.fleet!.window } });
    this.classifierOptions.learned = memory.learn ? this.plan.budgets : undefined;
  }
}

/** A session followed by a start tracker (what `watch`, `run` and replay with a history use). */
export function trackedSession(options: SessionOptions & StartTrackerOptions): { session: Session; tracker: StartTracker } {
  const { memory, fallbackModel, ...session } = options;
  const tracker = new StartTracker({ memory, fallbackModel });
  return { session: new Session(tracker.lend(session)), tracker };
}

/** The start tracker following a session, if any (a group's nodes and plain replays have none). */
export function trackerOf(session: Session): StartTracker | undefined {
  return session.observers.find((o): o is StartTracker => o instanceof StartTracker);
}
