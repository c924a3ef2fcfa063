/**
 * What the history and the progress bars add to the watch output: rate and time left, what
 * earlier starts here took, and (in JSON) the numbers behind both. A session no start tracker
 * follows adds nothing.
 */
import { formatDuration } from '../core/duration.js';
import { formatProgress } from '../core/eta.js';
import type { Session, SessionEvent } from '../core/session.js';
import type { Stage } from '../core/vocabulary.js';
import type { StageExpectation } from './learn-budgets.js';
import type { ReadyEta } from './ready-eta.js';
import { trackerOf } from './start-tracker.js';

/** For the status line: `41/163 shards, 2.2/s, ~55s left`, `usually 5m05s-5m20s here` and `ready in ~6m`. */
export function statusInsight(session: Session, now: number): { progress?: string; usual?: string; ready?: string } {
  const tracker = trackerOf(session);
  if (!tracker) return {};
  const state = session.classifier?.state;
  const estimate = tracker.progressEstimate(now);
  const expectation = state ? tracker.expectationFor(state.stage) : undefined;
  const eta = state ? tracker.readyEta(state.stage, now - state.stageSince) : undefined;
  return {
    progress: estimate ? formatProgress(estimate) : undefined,
    usual: expectation && state ? usualText(expectation, now - state.stageSince) : undefined,
    ready: eta ? readyText(eta) : undefined,
  };
}

/** `ready in ~6m10s`, or what it would be had this stage taken its usual time. */
export function readyText(eta: ReadyEta): string {
  return eta.overdue ? `ready in ~${formatDuration(eta.etaMs)} after this stage (slower than usual now)` : `ready in ~${formatDuration(eta.etaMs)}`;
}

/** For a stage line: `usually 5m05s-5m20s here · ready in ~6m`, or undefined when the history says nothing. */
export function stageNote(session: Session, stage: Stage): string | undefined {
  const tracker = trackerOf(session);
  const expectation = tracker?.expectationFor(stage);
  if (!tracker || !expectation) return undefined;
  const eta = tracker.readyEta(stage, 0);
  return `${usualText(expectation)}${eta ? ` · ${readyText(eta)}` : ''}`;
}

export function usualText(e: StageExpectation, soFarMs?: number): string {
  const span = (ms: number): string => (ms === 0 ? '0s' : formatDuration(ms));
  const range = span(e.minMs) === span(e.maxMs) ? span(e.maxMs) : `${span(e.minMs)}-${span(e.maxMs)}`;
  const usual =
    e.scope === 'setup'
      ? `usually ${range} here`
      : e.scope === 'fleet'
        ? `usually ${span(e.medianMs)} in the fleet, 95% within ${span(e.maxMs)} (${e.starts} starts)`
        : `any model here: up to ${span(e.maxMs)}`;
  return soFarMs !== undefined && soFarMs > e.maxMs ? `${usual} (slower now)` : usual;
}

/** Fields added to a JSON event: rate and time left for progress, expectations and budget for a stage. */
export function insightJson(session: Session, event: SessionEvent): Record<string, unknown> {
  const tracker = trackerOf(session);
  if (!tracker) return {};
  if (event.type === 'progress') {
    const estimate = tracker.estimateFor(event);
    if (!estimate) return {};
    return {
      rate_per_s: estimate.ratePerS === undefined ? undefined : Number(estimate.ratePerS.toPrecision(4)),
      eta_ms: estimate.etaMs,
      eta_basis: estimate.basis,
    };
  }
  if (event.type === 'stage') {
    const e = tracker.expectationFor(event.stage);
    const budget = tracker.budgetOf(event.stage);
    return {
      expected: e ? { scope: e.scope, starts: e.starts, min_ms: e.minMs, median_ms: e.medianMs, max_ms: e.maxMs } : undefined,
      budget,
      // As the stage begins: the medians of it and of every stage after it.
      eta_ready_ms: tracker.readyEta(event.stage, 0)?.etaMs,
    };
  }
  if (event.type === 'verdict') {
    // Said when something was learned or the fleet was asked; a start with neither reads as before.
    const learned = tracker.learned;
    return learned.source === 'pack' && learned.fleet_url === null ? {} : { learned };
  }
  return {};
}
