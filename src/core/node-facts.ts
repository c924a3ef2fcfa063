/**
 * Which node of a multi-node start a log belongs to, and how many nodes the start has, as the
 * log itself says. Each reader below is a line servers or NCCL print on every node.
 */

export interface NodeFacts {
  /** This log's node rank (0 = the head). */
  rank?: number;
  /** The number of nodes in the start. */
  nnodes?: number;
  /** The log says it is not the head (vLLM `--headless`) without saying which rank it is. */
  follower?: boolean;
}

const READERS: { pattern: RegExp; read: (m: RegExpExecArray) => NodeFacts | undefined }[] = [
  // SGLang ServerArgs(..., nnodes=2, node_rank=0, ...); the dump may be hard-wrapped, so each key alone.
  { pattern: /\bnode_rank=(\d+)/, read: (m) => ({ rank: Number(m[1]) }) },
  { pattern: /\bnnodes=(\d+)/, read: (m) => ({ nnodes: Number(m[1]) }) },
  // vLLM non-default args: {'nnodes': 2, 'node_rank': 1, 'headless': True}
  { pattern: /'node_rank': (\d+)/, read: (m) => ({ rank: Number(m[1]) }) },
  { pattern: /'nnodes': (\d+)/, read: (m) => ({ nnodes: Number(m[1]) }) },
  { pattern: /'headless': True\b|\bheadless=True\b/, read: () => ({ follower: true }) },
  // NCCL_DEBUG=INFO on every rank: `comm 0x.. rank 10 nRanks 16 nNodes 2 localRanks 8 localRank 2`.
  {
    pattern: /\brank (\d+) nRanks \d+ nNodes (\d+) localRanks (\d+) localRank (\d+)\b/,
    read: (m) => {
      const [rank, nnodes, localRanks, localRank] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
      if (localRanks === 0 || localRank > rank) return { nnodes };
      const node = (rank - localRank) / localRanks;
      return Number.isInteger(node) && node < nnodes ? { rank: node, nnodes } : { nnodes };
    },
  },
];

/** What one line says about the node; undefined when it says nothing. */
export function nodeFactsOf(line: string): NodeFacts | undefined {
  let facts: NodeFacts | undefined;
  for (const reader of READERS) {
    const match = reader.pattern.exec(line);
    const found = match ? reader.read(match) : undefined;
    if (found) facts = { ...facts, ...found };
  }
  return facts;
}

/** Facts of several lines: the first value of each kind stands (a later run may differ; the first is the start). */
export function addNodeFacts(known: NodeFacts, next: NodeFacts | undefined): NodeFacts {
  if (!next) return known;
  return {
    rank: known.rank ?? next.rank,
    nnodes: known.nnodes ?? next.nnodes,
    follower: known.follower ?? next.follower,
  };
}
