/**
 * Weighing root-cause candidates. A failing start prints many alarming lines; the cause is the
 * first fatal exception of the failing process, not the wrapper printed after it. Candidates
 * are ranked by how much they say, then by who said it first.
 */
import type { Evidence } from './events.js';
import type { Groups } from './match-frame.js';
import type { CompiledFailure, CompiledInference } from './pack-types.js';
import type { Cause } from './vocabulary.js';

/**
 * Ranked by how specific the evidence is:
 * 0: a fatal rule naming the cause.
 * 1: a non-fatal rule naming a cause (a warning that explains a later death), tied to the failing
 *    process: it comes from the same process as the exceptions of the run, or there are none.
 * 2: an exception no rule names, whose cause its own words name (the catalog, the inference
 *    tables: words, class, package); or a line the source makes fatal (the catalog).
 * 3: a line the source prints before an exception it explains (catalog: fatal if an exception
 *    follows), from the failing process: it names the cause of an exception with no words of its
 *    own, never of one that names its own.
 * 4: an exception nobody names (`crash`).
 * 5: a warning from another process than the failing one (a startup warning unrelated to it).
 * 6: a wrapper that restates a death and carries a cause (`exit code -9`).
 * 7: an exception that only reports another process's death (a launcher's EOFError).
 * 8: a wrapper that only says the start is dead.
 */
export type Tier = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

export const TIER = { rule: 0, warning: 1, inferred: 2, explains: 3, exception: 4, untiedWarning: 5, wrapperWithCause: 6, peerDeath: 7, wrapper: 8 } as const;

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
  /** The candidate is an exception closing a traceback (named by a rule, inferred or not). */
  exception?: boolean;
  /** An exception whose class only reports another process's death: the symptoms entry that says so. */
  peerDeath?: string;
  /** A line that explains an exception after it (tier `explains` while its process is failing). */
  explains?: true;
}

export const GENERIC_EXCEPTION_RULE = 'core/uncaught-exception';
export const GENERIC_HINT = 'No rule knows this exception yet: read the traceback that ends in it, and consider adding a rule for it.';

export function tierOf(rule: CompiledFailure): Tier {
  if (rule.role === 'cause') return rule.fatal ? TIER.rule : TIER.warning;
  return rule.cause === 'crash' || rule.cause === 'unknown' ? TIER.wrapper : TIER.wrapperWithCause;
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
    tier: TIER.exception,
    seq,
    cause: 'crash',
    ruleId: GENERIC_EXCEPTION_RULE,
    message: `Python exception: ${text.trim().slice(0, 200)}`,
    hint: GENERIC_HINT,
    evidence,
    superseded: false,
    exception: true,
  };
}

/** Names an unnamed exception's cause from an inference entry (the evidence stays the exception's). */
export function applyInference(candidate: Candidate, entry: CompiledInference, text: string): void {
  candidate.tier = TIER.inferred;
  candidate.cause = entry.cause;
  candidate.ruleId = entry.id;
  candidate.message = `${entry.message}: ${text.trim().slice(0, 200)}`;
  candidate.hint = entry.hint;
}

/** The process a candidate's first line came from (its process or rank tag; untagged lines share one). */
export function processOf(candidate: Candidate): string {
  const first = candidate.evidence[0];
  return first?.proc ?? (first?.rank === undefined ? '' : `rank ${first.rank}`);
}

/**
 * A warning explains the failure only when it comes from a failing process: once exceptions were
 * raised and none of them in the warning's process, it ranks below them. `failing` holds the
 * processes that raised; `added` are the candidates of the frame just weighed. Incremental, so a
 * log repeating a warning thousands of times stays linear.
 */
export function tieWarnings(all: readonly Candidate[], added: readonly Candidate[], failing: Set<string>): void {
  const grown: string[] = [];
  for (const candidate of added) {
    if (!candidate.exception || candidate.superseded || candidate.tier > TIER.exception) continue;
    const process = processOf(candidate);
    if (!failing.has(process)) grown.push(process);
    failing.add(process);
  }
  const isWarning = (c: Candidate): boolean => !c.exception && (c.tier === TIER.warning || c.tier === TIER.explains || c.tier === TIER.untiedWarning);
  const judge = (c: Candidate): void => {
    c.tier = !failing.has(processOf(c)) ? TIER.untiedWarning : c.explains ? TIER.explains : TIER.warning;
  };
  if (failing.size === 0) return;
  // The first failing process (or a new one) changes what every earlier warning is tied to.
  const warnings = grown.length > 0 ? all : added;
  for (const candidate of warnings) if (isWarning(candidate)) judge(candidate);
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
