/**
 * The `group` part of a multi-node head's /v1/status: the group's verdict and where each node
 * stands. Pure; from the group reducer's standing and its verdict, when it has one.
 */
import type { GroupVerdict, NodeSummary } from '../core/group-types.js';
import type { Stage } from '../core/vocabulary.js';
import type { StatusVerdict } from './status-snapshot.js';

export interface GroupNodeStatus {
  node_rank: number;
  joined: boolean;
  stage: Stage;
  verdict: StatusVerdict;
  /** Its process died or it stopped reporting. */
  lost: boolean;
}

export interface GroupStatus {
  verdict: StatusVerdict;
  /** The node the verdict names (the root cause's, the furthest behind, the head). */
  node_rank: number | null;
  reason: string | null;
  head: number;
  expected: number;
  nodes: GroupNodeStatus[];
}

export function groupStatus(standing: { nodes: NodeSummary[]; head: number; expected: number }, verdict?: GroupVerdict): GroupStatus {
  // Where the nodes stand now, not where they stood at the verdict: after READY followers go on
  // (their own READY, a death), and the status API must say so.
  const nodes = standing.nodes;
  return {
    verdict: verdict?.verdict ?? 'pending',
    node_rank: verdict?.node ?? null,
    reason: verdict?.reason ?? null,
    head: standing.head,
    expected: standing.expected,
    nodes: nodes.map((n) => ({ node_rank: n.node, joined: n.joined, stage: n.stage, verdict: n.verdict ?? 'pending', lost: n.lost === true })),
  };
}
