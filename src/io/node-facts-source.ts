/**
 * Notes what a node's first bytes say about the group (its rank, the group size) as they pass
 * on to its watch loop. Read from the bytes, not from the session: lines that change nothing
 * for the classifier are let go unread (io/fast-path/), and a hard-wrapped argument dump
 * puts `nnodes=` on such a line.
 */
import { addNodeFacts, nodeFactsOf, type NodeFacts } from '../core/node-facts.js';
import type { SourceItem } from './watch-loop.js';

/** Argument dumps and NCCL's set-up lines come first. */
const SCAN_BYTES = 1 << 20;

export async function* withNodeFacts(source: AsyncIterable<SourceItem>, onFacts: (facts: NodeFacts) => void): AsyncGenerator<SourceItem> {
  let facts: NodeFacts = {};
  let scanned = 0;
  let partial = '';
  for await (const item of source) {
    if (item.kind === 'data' && scanned < SCAN_BYTES && (facts.rank === undefined || facts.nnodes === undefined)) {
      const text = partial + item.chunk.toString('latin1', 0, Math.min(item.chunk.length, SCAN_BYTES - scanned));
      scanned += item.chunk.length;
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      const before = facts;
      for (const line of lines) facts = addNodeFacts(facts, nodeFactsOf(line));
      if (facts !== before && (facts.rank !== before.rank || facts.nnodes !== before.nnodes || facts.follower !== before.follower)) onFacts(facts);
    }
    yield item;
  }
}
