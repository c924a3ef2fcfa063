/** Stage markers and progress bars: where the start is, and whether it is moving. */
import type { ClassifierEvent, LogLine } from './events.js';
import type { CompiledMarker, CompiledPack } from './pack-types.js';
import type { RuleHit } from './rule-hit.js';
import type { ProgressHit } from './rule-kinds.js';
import type { RunState } from './run-state.js';
import type { Stage } from './vocabulary.js';

/** Applies a stage marker's hit; true when the start moved (entered a new stage). */
export function followMarker(run: RunState, pack: CompiledPack, hit: RuleHit<CompiledMarker>, line: LogLine, events: ClassifierEvent[]): boolean {
  const { rule } = hit;
  const moved = enterStage(run, pack, { stage: rule.stage, rule: rule.id, line, reenterFrom: rule.reenterFrom }, events);
  if (rule.stage !== 'launch') run.progressed = true;
  return moved;
}

/**
 * Stages only move forward in the family's order: eight ranks print the same marker at slightly
 * different times. A marker may go back only where the pack allows it (an EAGLE draft model
 * loading after the target's graphs were captured).
 */
function enterStage(run: RunState, pack: CompiledPack, to: { stage: Stage; rule: string; line: LogLine; reenterFrom?: Stage }, events: ClassifierEvent[]): boolean {
  const rank = pack.stageRank;
  const current = rank[run.stage];
  const next = rank[to.stage];
  if (next === current) return false;
  const reentered = next < current;
  if (reentered && (to.reenterFrom === undefined || current < rank[to.reenterFrom])) return false;
  events.push({ type: 'stage', stage: to.stage, from: run.stage, at: to.line.at, line: to.line, rule: to.rule, reentered });
  run.stage = to.stage;
  run.stageSince = to.line.at;
  if (to.stage !== 'launch') run.progressed = true;
  return true;
}

/** Ranks' bars a run remembers: more is a log whose text before a bar keeps changing, not more ranks. */
const MAX_BAR_POSITIONS = 256;

/**
 * Applies a progress bar's hit (it may enter the bar's stage); true when this rank's bar advanced.
 * Each rank's bar keeps its own position; the stage's progress is the slowest rank's, and an
 * event says so when it changes (not at every rank's step).
 */
export function followProgress(run: RunState, pack: CompiledPack, hit: ProgressHit, line: LogLine, events: ClassifierEvent[]): boolean {
  run.barMoves++;
  if (hit.rule.stage && pack.stageRank[hit.rule.stage] > pack.stageRank[run.stage]) {
    enterStage(run, pack, { stage: hit.rule.stage, rule: hit.rule.id, line }, events);
  }
  const elapsedS = hit.elapsedMs === undefined ? -1 : Math.floor(hit.elapsedMs / 1000);
  noteRank(run, hit);
  const key = rankKey(run, hit);
  const position = run.barPositions.get(key);
  if (position === undefined) {
    if (run.barPositions.size >= MAX_BAR_POSITIONS) run.barPositions.delete(run.barPositions.keys().next().value!);
    run.barPositions.set(key, { bar: hit.bar, current: hit.current, elapsedS, reads: 1 });
  } else {
    position.reads = position.elapsedS === elapsedS ? position.reads + 1 : 1;
    position.elapsedS = elapsedS;
    if (position.current === hit.current) return false;
    position.current = hit.current;
  }
  const current = slowestRank(run, hit);
  const shown = run.progress;
  if (shown !== undefined && shown.current === current && shown.rule === hit.rule.id && shown.label === hit.groups.label && shown.total === hit.total) return true;
  const percent = current === hit.current ? hit.percent : hit.total ? Math.floor((current / hit.total) * 100) : undefined;
  run.progress = { rule: hit.rule.id, unit: hit.rule.unit, current, total: hit.total, percent, label: hit.groups.label };
  events.push({ type: 'progress', stage: run.stage, at: line.at, line, progress: run.progress });
  return true;
}

/**
 * Which rank's bar a frame is: the rank it names, or, when it names none, the last rank that drew
 * the bar (tqdm's frames after the first on one line carry no tag: vLLM's `(Worker_TP0 pid=41)`
 * stands before the first only); the bar itself when no rank ever named itself.
 */
export function rankKey(run: Readonly<RunState>, hit: ProgressHit): string {
  return hit.anonymous ? (run.barRanks.get(hit.bar) ?? hit.key) : hit.key;
}

/** Remembers the rank a frame names as the one that drew its bar last. */
function noteRank(run: RunState, hit: ProgressHit): void {
  if (hit.anonymous || run.barRanks.get(hit.bar) === hit.key) return;
  if (run.barRanks.size >= MAX_BAR_POSITIONS) run.barRanks.clear();
  run.barRanks.set(hit.bar, hit.key);
}

/** The position of the rank furthest behind on the hit's bar (one rank: its own). */
function slowestRank(run: RunState, hit: ProgressHit): number {
  let slowest = hit.current;
  for (const position of run.barPositions.values()) if (position.bar === hit.bar && position.current < slowest) slowest = position.current;
  return slowest;
}
