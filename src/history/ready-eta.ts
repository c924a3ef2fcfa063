/**
 * Time left to READY by what earlier starts of the model took: what is usually left of the
 * current stage (its median less the time spent in it, never below 0) and the medians of the
 * stages after it. Only when the history or the fleet knows the current stage: a guess from
 * later stages alone would leave out the one going on. Pure.
 */
import { STAGES, type Stage } from '../core/vocabulary.js';
import type { StageExpectation } from './learn-budgets.js';

export interface ReadyEta {
  /** Time left, as of the moment the stage had run `stageElapsedMs`. */
  etaMs: number;
  /** The current stage has run past its usual time (p95, or the slowest here). */
  overdue: boolean;
}

export function readyEta(expectations: Partial<Record<Stage, StageExpectation>>, stage: Stage, stageElapsedMs: number): ReadyEta | undefined {
  const current = expectations[stage];
  if (!current || stage === 'none' || stage === 'ready') return undefined;
  const later = STAGES.slice(STAGES.indexOf(stage) + 1).reduce((sum, s) => sum + (expectations[s]?.medianMs ?? 0), 0);
  return { etaMs: Math.max(0, current.medianMs - stageElapsedMs) + later, overdue: stageElapsedMs > current.maxMs };
}
