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

/** Applies a progress bar's hit (it may enter the bar's stage); true when the bar advanced. */
export function followProgress(run: RunState, pack: CompiledPack, hit: ProgressHit, line: LogLine, events: ClassifierEvent[]): boolean {
  if (hit.rule.stage && pack.stageRank[hit.rule.stage] > pack.stageRank[run.stage]) {
    enterStage(run, pack, { stage: hit.rule.stage, rule: hit.rule.id, line }, events);
  }
  const previous = run.barPositions.get(hit.key);
  run.barPositions.set(hit.key, hit.current);
  if (previous === hit.current) return false;
  run.progress = { rule: hit.rule.id, unit: hit.rule.unit, current: hit.current, total: hit.total, percent: hit.percent, label: hit.groups.label };
  events.push({ type: 'progress', stage: run.stage, at: line.at, line, progress: run.progress });
  return true;
}
