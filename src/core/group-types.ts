/** The words of a multi-node start: its nodes, what the group says, and the events it passes on. */
import type { Verdict } from './events.js';
import type { SessionEvent } from './session.js';
import type { Stage, VerdictKind } from './vocabulary.js';

/**
 * Where a node's events come from. `log`: a log spinup reads itself (a file, a pipe, a command's
 * output); its silence is judged by stage budgets, its process (when spinup runs the reader) by
 * how it ends. `remote`: a node that pushes its own events and heartbeats; it is lost when it
 * misses three heartbeat intervals.
 */
export type NodeKind = 'log' | 'remote';

/** Where the expected number of nodes came from (`command`: the server command's `--nnodes`, for `run`). */
export type SizeSource = 'option' | 'log' | 'command' | 'env' | 'nodes';

export interface NodeSummary {
  node: number;
  joined: boolean;
  stage: Stage;
  /** The node's own latest verdict, if it has one. */
  verdict?: VerdictKind;
  /** The node went away: its process died or it stopped reporting. */
  lost?: boolean;
}

export interface GroupVerdict {
  verdict: VerdictKind;
  /** The node the verdict names: the root cause's (failed), the furthest behind (stalled), the head (ready). */
  node?: number;
  stage: Stage;
  /** Group time of the decision. */
  at: number;
  /** From the group's first event to the decision. */
  elapsedMs: number;
  reason: string;
  /** The named node's own verdict (for stalled: the verdict of the node that exceeded its budget). */
  detail?: Verdict;
  /** Failures of other nodes, set aside as symptoms of the root cause. */
  setAside: { node: number; verdict: Verdict }[];
  nodes: NodeSummary[];
  head: number;
  expected: number;
  expectedFrom: SizeSource;
  /** Stalled: the node that exceeded its stage budget (may differ from the one furthest behind). */
  stalledNode?: number;
}

export type GroupEvent =
  /** A node's own event, passed on with its node. */
  | { type: 'node'; node: number; at: number; event: SessionEvent }
  | { type: 'joined'; node: number; at: number }
  | { type: 'size'; at: number; expected: number; from: SizeSource }
  /** The head is ready but these nodes never joined: the group waits for them. */
  | { type: 'waiting'; at: number; missing: number[] }
  /** The node's process died or it stopped reporting (its verdict says how). */
  | { type: 'node-lost'; node: number; at: number; verdict: Verdict }
  /** A node failed after the group was ready. */
  | { type: 'after-ready-failure'; node: number; at: number; verdict: Verdict }
  | { type: 'group-verdict'; verdict: GroupVerdict };
