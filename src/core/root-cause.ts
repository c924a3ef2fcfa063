/**
 * Weighing root-cause candidates. A failing start prints many alarming lines; the cause is the
 * first fatal exception of the failing process, not the wrapper printed after it. Candidates
 * are ranked by how much they say, then by who said it first.
 */
import type { Evidence } from './events.js';
import type { Groups } from './match-frame.js';
import type { CompiledFailure } from './pack-types.js';
import type { Cause } from './vocabulary.js';

/**
 * 0: a fatal rule naming the cause. 1: a non-fatal rule naming a cause (a warning that explains
 * a later death). 2: a wrapper that still carries a cause (`exit code -9`). 3: an exception no
 * rule names. 4: a wrapper that only says the start is dead.
 */
export type Tier = 0 | 1 | 2 | 3 | 4;

export interface Candidate {
  tier: Tier;
  seq: number;
  cause: Cause;
  ruleId: string;
  message: string;
  hint: string;
  evidence: Evidence[];
  /** Superseded by an exception raised while handling it. */
  superseded: boolean;
}

export const GENERIC_EXCEPTION_RULE = 'core/uncaught-exception';
export const GENERIC_HINT = 'No rule knows this exception yet: read the traceback that ends in it, and consider adding a rule for it.';

export function tierOf(rule: CompiledFailure): Tier {
  if (rule.role === 'cause') return rule.fatal ? 0 : 1;
  return rule.cause === 'crash' || rule.cause === 'unknown' ? 4 : 2;
}

export function fromRule(rule: CompiledFailure, groups: Groups, evidence: Evidence[], seq: number): Candidate {
  return {
    tier: tierOf(rule),
    seq,
    cause: rule.cause,
    ruleId: rule.id,
    message: fillTemplate(rule.message, groups),
    hint: fillTemplate(rule.hint, groups),
    evidence,
    superseded: false,
  };
}

export function fromException(text: string, evidence: Evidence[], seq: number): Candidate {
  return {
    tier: 3,
    seq,
    cause: 'crash',
    ruleId: GENERIC_EXCEPTION_RULE,
    message: `Python exception: ${text.trim().slice(0, 200)}`,
    hint: GENERIC_HINT,
    evidence,
    superseded: false,
  };
}

/** The best candidate: lowest tier, then earliest; superseded exceptions only if nothing else. */
export function bestCandidate(candidates: readonly Candidate[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const candidate of candidates) {
    if (!best || compareCandidates(candidate, best) < 0) best = candidate;
  }
  return best;
}

/** Orders candidates best first: not superseded, then lowest tier, then earliest. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return Number(a.superseded) - Number(b.superseded) || a.tier - b.tier || a.seq - b.seq;
}

/** Fills `{{group}}` placeholders from named capture groups. */
export function fillTemplate(template: string, groups: Groups): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => groups[name] ?? '').replace(/\s{2,}/g, ' ').trim();
}
