/**
 * Time spent in each stage of the current run, from the stage events' log times: `none` from
 * the first line to the first marker, each stage until the next one, the last until the
 * verdict. A re-entered stage (an EAGLE draft loading after the target) adds up.
 */
import type { SessionEvent } from '../core/session.js';
import type { Stage } from '../core/vocabulary.js';

export class StageClock {
  private times: Partial<Record<Stage, number>> = {};
  private current: { stage: Stage; since: number } | undefined;
  private closed = false;

  /** `runStart`: log time of the run's first line (the classifier knows it). */
  observe(event: SessionEvent, runStart: () => number | undefined): void {
    if (event.type === 'restart') {
      this.times = {};
      this.current = undefined;
      this.closed = false;
      return;
    }
    if (this.closed) return;
    if (event.type === 'stage') {
      this.advance(event.at, runStart);
      this.current = { stage: event.stage, since: event.at };
    } else if (event.type === 'verdict') {
      this.advance(event.verdict.at, runStart);
      this.closed = true;
    }
  }

  /** Stage times so far (the open stage not included until the verdict closes it). */
  snapshot(): Partial<Record<Stage, number>> {
    return { ...this.times };
  }

  private advance(at: number, runStart: () => number | undefined): void {
    const from = this.current ?? { stage: 'none' as const, since: runStart() ?? at };
    this.times[from.stage] = (this.times[from.stage] ?? 0) + Math.max(0, at - from.since);
  }
}
