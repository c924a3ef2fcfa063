/** Which stall budget applies to a stage: a `--stall` override, a learned one, or the pack's. */
import type { Budget } from './events.js';
import type { CompiledPack } from './pack-types.js';
import type { Stage } from './vocabulary.js';

export interface BudgetOptions {
  /** `--stall`: one budget for every stage. */
  stallOverrideMs?: number;
  /** Budgets learned from earlier starts of the same model on this host. */
  learned?: Partial<Record<Stage, Budget>>;
}

export function budgetFor(pack: CompiledPack, stage: Stage, options: BudgetOptions): Budget {
  if (options.stallOverrideMs !== undefined) {
    return { ms: options.stallOverrideMs, source: 'override', detail: '--stall' };
  }
  const learned = options.learned?.[stage];
  if (learned) return learned;
  const own = pack.budgets[stage];
  if (own !== undefined) return { ms: own, source: 'pack', detail: `pack ${pack.name}, stage ${stage}` };
  return { ms: pack.defaultBudgetMs, source: 'pack', detail: `pack ${pack.name}, default budget` };
}

/** `budgetFor(...).ms` without building the budget's description: asked on every line. */
export function budgetMsFor(pack: CompiledPack, stage: Stage, options: BudgetOptions): number {
  if (options.stallOverrideMs !== undefined) return options.stallOverrideMs;
  const learned = options.learned?.[stage];
  if (learned) return learned.ms;
  return pack.budgets[stage] ?? pack.defaultBudgetMs;
}
