/**
 * Which node's failure is the group's root cause. When one node of a multi-node start dies, its
 * healthy peers fail too, with NCCL timeouts, "connection closed by peer" and store time-outs:
 * symptoms of the death, often printed first on the node people watch. A failure that names a
 * specific cause (or a node that went away) beats those symptoms, then the earliest arrival
 * wins, then the lowest rank.
 */
import type { Verdict } from './events.js';
import type { Cause } from './vocabulary.js';

/** How the group learned that a node failed. */
export type FailureOrigin = 'log' | 'process' | 'heartbeat';

export interface NodeFailure {
  node: number;
  verdict: Verdict;
  origin: FailureOrigin;
  /** Group time it arrived. */
  arrivedAt: number;
}

/** What a healthy peer prints when another node dies or hangs. */
export const PEER_SYMPTOM_CAUSES: ReadonlySet<Cause> = new Set<Cause>(['nccl_timeout', 'distributed_error']);

/**
 * 0: a specific cause, or the node itself went away (its process died, it stopped reporting).
 * 1: a peer symptom (NCCL timeout, other distributed errors). 2: the log names no cause at all.
 */
export type Strength = 0 | 1 | 2;

export function strengthOf(failure: NodeFailure): Strength {
  if (failure.origin !== 'log') return 0;
  const cause = failure.verdict.cause ?? 'unknown';
  if (cause === 'unknown') return 2;
  return PEER_SYMPTOM_CAUSES.has(cause) ? 1 : 0;
}

/** Best first: strongest, then earliest arrival, then lowest rank. */
export function compareFailures(a: NodeFailure, b: NodeFailure): number {
  return strengthOf(a) - strengthOf(b) || a.arrivedAt - b.arrivedAt || a.node - b.node;
}

export function rankFailures(failures: readonly NodeFailure[]): NodeFailure[] {
  return [...failures].sort(compareFailures);
}

/** Why this node is the root cause, in one sentence. */
export function failureReason(best: NodeFailure, others: readonly NodeFailure[]): string {
  const what = best.origin === 'process' ? `node ${best.node}'s process died` : best.origin === 'heartbeat' ? `node ${best.node} stopped reporting` : `node ${best.node} failed`;
  if (others.length === 0) return `${what}, the only node that failed`;
  const nodes = `node${others.length > 1 ? 's' : ''} ${others.map((o) => o.node).join(', ')}`;
  if (others.every((o) => strengthOf(o) > strengthOf(best))) {
    return `${what} with a specific cause; the failures of ${nodes} look like its symptoms`;
  }
  return `${what} first; ${nodes} failed after it`;
}
