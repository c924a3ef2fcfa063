/**
 * Stall budgets learned from earlier successful starts on this host.
 *
 * A stall budget bounds silence, and silence within a stage never exceeds the time spent in
 * it, so a budget derived from stage durations would have let every start it was learned
 * from pass even had the whole stage been one silence. The rule, per stage:
 *
 *   learned = clamp(3 × slowest + 2 min, floor, pack budget), used only when below the pack's
 *
 * - Same setup (family, model, tp, quantization, speculative) on this host, at least 2 ready
 *   starts: floor 2 min. This is what "normal for this model here" means.
 * - Otherwise, family-wide on this host (any model), at least 3 ready starts of 3 setups:
 *   floor 10 min, and never for load_weights, whose length follows the model's size (the
 *   story of a 547 GB model loading for 5 minutes). Other models can say "nothing here ever
 *   sat 45 minutes in cuda_graph"; they cannot say "2 minutes is enough for yours". On the
 *   shipped fixtures a 2-minute family floor turned three failures into false stalls.
 * - The floor is never below the stage's `cold_floor` in the pack. Where a stage's time depends
 *   on disk, caches or the network (weights read with a cold page cache or downloaded, an empty
 *   torch.compile or kernel cache), the history is mostly warm starts, and a cold one can take
 *   30 times as long while healthy: warm starts alone must not call it a stall (the seed's
 *   engineer lost time to a 313 s load taken for a hang; a learned 2m24s did the same).
 * - Learning only ever tightens: a learned budget above the pack's is not used (`--stall`
 *   loosens). Stalled, failed and unfinished starts never teach: their last stage did not end.
 * - The fleet (`--learn-from`, fleet-queries.ts) speaks for this family and model across all
 *   hosts, as p50 and p95 of its READY starts: it teaches like this host's starts of the
 *   model, with the p95 in the place of the slowest (at least 2 starts; same floors). When
 *   this host has same-model starts too, the looser of the two budgets holds (neither says the
 *   other's slow starts were abnormal); a host-wide figure (any model) yields to the fleet's.
 */
import { formatDuration } from '../core/duration.js';
import type { Budget } from '../core/events.js';
import type { CompiledPack } from '../core/pack-types.js';
import type { StartFacts } from '../core/start-facts.js';
import { STAGES, type Stage } from '../core/vocabulary.js';
import type { FleetModel } from './fleet-queries.js';
import { setupKey, factsOf, type StartRecord } from './start-record.js';

export const LEARNING = {
  /**
   * A start learns from the newest 256 KiB of the history (about 750 starts of ~350 bytes):
   * recent enough to be this host as it is now, and bounded, so a history of years does not
   * slow every start down (3,700 records read whole cost a cold start 35 ms).
   */
  windowBytes: 256 * 1024,
  multiple: 3,
  marginMs: 2 * 60_000,
  setup: { minStarts: 2, floorMs: 2 * 60_000 },
  host: { minStarts: 3, minSetups: 3, floorMs: 10 * 60_000, never: ['load_weights'] as readonly Stage[] },
} as const;

export interface StageExpectation {
  /** `fleet`: the fleet's figures (merged with this host's when it has some); median p50, max p95. */
  scope: 'setup' | 'host' | 'fleet';
  starts: number;
  minMs: number;
  medianMs: number;
  maxMs: number;
}

/** What the learned figures rest on, for `status`, /v1/status and the report. */
export interface LearnBasis {
  source: 'fleet' | 'local' | 'fleet+local' | 'pack';
  /** READY starts of the model in the fleet that taught (0 when none did). */
  fleetStarts: number;
  /** Starts on this host that taught (the most any stage rests on). */
  localStarts: number;
}

export interface LearnedPlan {
  budgets: Partial<Record<Stage, Budget>>;
  expectations: Partial<Record<Stage, StageExpectation>>;
  basis: LearnBasis;
}

export interface LearnParams {
  records: readonly StartRecord[];
  family: string;
  host: string;
  facts: StartFacts;
  pack: CompiledPack;
  /** The fleet's figures for this family and model, when asked for and known. */
  fleet?: FleetModel & { window: string };
}

export function emptyPlan(): LearnedPlan {
  return { budgets: {}, expectations: {}, basis: { source: 'pack', fleetStarts: 0, localStarts: 0 } };
}

export function learnBudgets({ records, family, host, facts, pack, fleet }: LearnParams): LearnedPlan {
  const teachers = dedupe(records.filter((r) => r.verdict === 'ready' && r.family === family && r.host === host));
  const key = setupKey(family, facts);
  const same = key === undefined ? [] : teachers.filter((r) => setupKey(r.family, factsOf(r)) === key);
  const plan = emptyPlan();
  for (const stage of STAGES) {
    if (stage === 'ready') continue;
    const coldMs = pack.coldFloors[stage] ?? 0;
    const local = fromSetup(stage, same, coldMs) ?? fromHost({ stage, teachers, family, coldMs });
    const fromFleetHere = fleet ? fromFleet(stage, fleet, coldMs) : undefined;
    const learned = merged(local, fromFleetHere);
    if (!learned) continue;
    plan.expectations[stage] = learned.expectation;
    if (fromFleetHere) plan.basis.fleetStarts = Math.max(plan.basis.fleetStarts, fromFleetHere.expectation.starts);
    if (local && (fromFleetHere === undefined || local.expectation.scope === 'setup')) plan.basis.localStarts = Math.max(plan.basis.localStarts, local.expectation.starts);
    const packMs = pack.budgets[stage] ?? pack.defaultBudgetMs;
    if (learned.budget.ms < packMs) plan.budgets[stage] = learned.budget;
  }
  const { fleetStarts, localStarts } = plan.basis;
  plan.basis.source = fleetStarts > 0 ? (localStarts > 0 ? 'fleet+local' : 'fleet') : localStarts > 0 ? 'local' : 'pack';
  return plan;
}

type Learned = { expectation: StageExpectation; budget: Budget };

function fromFleet(stage: Stage, fleet: FleetModel & { window: string }, coldMs: number): Learned | undefined {
  const figures = fleet.stages[stage];
  if (!figures || figures.starts < LEARNING.setup.minStarts) return undefined;
  const expectation: StageExpectation = { scope: 'fleet', starts: figures.starts, minMs: figures.p50Ms, medianMs: figures.p50Ms, maxMs: figures.p95Ms };
  const { ms, cold } = budgetMs(figures.p95Ms, Math.max(LEARNING.setup.floorMs, coldMs), coldMs);
  const detail = `learned from ${figures.starts} starts of this model in the fleet over ${fleet.window} (p95 ${slowest(figures.p95Ms)}${cold})`;
  return { expectation, budget: { ms, source: 'learned', detail } };
}

/**
 * This host's figure and the fleet's for one stage. A same-model local figure merges: the looser
 * budget, the extremes of both, the median of the side with more starts. A host-wide one (any
 * model) yields to the fleet's, which knows this model.
 */
function merged(local: Learned | undefined, fleet: Learned | undefined): Learned | undefined {
  if (!fleet) return local;
  if (!local || local.expectation.scope === 'host') return fleet;
  const [l, f] = [local.expectation, fleet.expectation];
  const expectation: StageExpectation = {
    scope: 'fleet',
    starts: l.starts + f.starts,
    minMs: Math.min(l.minMs, f.minMs),
    medianMs: f.starts >= l.starts ? f.medianMs : l.medianMs,
    maxMs: Math.max(l.maxMs, f.maxMs),
  };
  const looser = fleet.budget.ms >= local.budget.ms ? fleet.budget : local.budget;
  const detail = `${fleet.budget.detail}, and ${l.starts} here (slowest ${slowest(l.maxMs)})`;
  return { expectation, budget: { ms: looser.ms, source: 'learned', detail } };
}

function fromSetup(stage: Stage, same: StartRecord[], coldMs: number): Learned | undefined {
  const times = timesOf(stage, same);
  if (times.length < LEARNING.setup.minStarts) return undefined;
  const expectation = stats('setup', times);
  const { ms, cold } = budgetMs(expectation.maxMs, Math.max(LEARNING.setup.floorMs, coldMs), coldMs);
  const detail = `learned from ${times.length} starts of this model here (slowest ${slowest(expectation.maxMs)}${cold})`;
  return { expectation, budget: { ms, source: 'learned', detail } };
}

function fromHost({ stage, teachers, family, coldMs }: { stage: Stage; teachers: StartRecord[]; family: string; coldMs: number }): Learned | undefined {
  if (LEARNING.host.never.includes(stage)) return undefined;
  const having = teachers.filter((r) => r.stages_ms[stage] !== undefined);
  const setups = new Set(having.map((r) => setupKey(r.family, factsOf(r)) ?? '?'));
  if (having.length < LEARNING.host.minStarts || setups.size < LEARNING.host.minSetups) return undefined;
  const expectation = stats('host', timesOf(stage, having));
  const { ms, cold } = budgetMs(expectation.maxMs, Math.max(LEARNING.host.floorMs, coldMs), coldMs);
  const detail = `learned from ${having.length} ${family} starts on this host, any model (slowest ${slowest(expectation.maxMs)}${cold})`;
  return { expectation, budget: { ms, source: 'learned', detail } };
}

/** `0s`, not `0ms`: log times are whole seconds mostly. */
function slowest(ms: number): string {
  return ms === 0 ? '0s' : formatDuration(ms);
}

/** `cold`: what the detail adds when the stage's cold floor, not the history, set the budget. */
function budgetMs(slowestMs: number, floorMs: number, coldMs: number): { ms: number; cold: string } {
  const fromHistory = LEARNING.multiple * slowestMs + LEARNING.marginMs;
  const ms = Math.max(floorMs, fromHistory);
  const cold = coldMs > 0 && ms === coldMs && fromHistory < coldMs ? `; at least ${formatDuration(coldMs)}, what a cold start may take` : '';
  return { ms, cold };
}

function timesOf(stage: Stage, records: StartRecord[]): number[] {
  return records.map((r) => r.stages_ms[stage]).filter((ms): ms is number => ms !== undefined);
}

export function stats(scope: StageExpectation['scope'], times: number[]): StageExpectation {
  const sorted = [...times].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const medianMs = sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
  return { scope, starts: sorted.length, minMs: sorted[0]!, medianMs, maxMs: sorted[sorted.length - 1]! };
}

/** A replayed log is one start however often it was replayed: its latest record counts. */
export function dedupe(records: readonly StartRecord[]): StartRecord[] {
  const replayed = new Map<string, number>();
  records.forEach((r, index) => {
    if (r.source === 'replay' && r.log !== undefined) replayed.set(`${r.host}\u0000${r.log}`, index);
  });
  return records.filter((r, index) => r.source !== 'replay' || r.log === undefined || replayed.get(`${r.host}\u0000${r.log}`) === index);
}
