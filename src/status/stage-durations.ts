/** Time spent in each stage a start has left behind (re-entries add up), on the log's clock. */
import type { Stage } from '../core/vocabulary.js';

export class StageDurations {
  private spent = new Map<Stage, number>();
  private current: { stage: Stage; since: number } | undefined;

  /** A `stage` event: the stage before it is over. */
  enter(stage: Stage, at: number): void {
    this.close(at);
    this.current = { stage, since: at };
  }

  /** A verdict: the stage it ends in is over too (READY itself takes no time). */
  close(at: number): void {
    const current = this.current;
    this.current = undefined;
    if (!current || current.stage === 'none' || current.stage === 'ready') return;
    this.spent.set(current.stage, (this.spent.get(current.stage) ?? 0) + Math.max(0, at - current.since));
  }

  /** A new run: its stages start over. */
  reset(): void {
    this.spent = new Map();
    this.current = undefined;
  }

  list(): { stage: Stage; duration_ms: number }[] {
    return [...this.spent].map(([stage, ms]) => ({ stage, duration_ms: ms }));
  }
}
