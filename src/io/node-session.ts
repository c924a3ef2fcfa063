/** A node's session that also notes what its lines say about the group (rank, size). */
import { addNodeFacts, nodeFactsOf, type NodeFacts } from '../core/node-facts.js';
import { Session } from '../core/session.js';

/** Argument dumps come first; after this many lines nothing new is expected. */
const FACT_LINES = 5_000;

export class NodeSession extends Session {
  facts: NodeFacts = {};
  private read = 0;

  override push(raw: string, where: { lineNo?: number; wall?: number; live?: boolean } = {}): ReturnType<Session['push']> {
    if (this.read < FACT_LINES && (this.facts.rank === undefined || this.facts.nnodes === undefined)) {
      this.read++;
      this.facts = addNodeFacts(this.facts, nodeFactsOf(raw));
    }
    return super.push(raw, where);
  }
}
