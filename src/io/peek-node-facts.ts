/** What the first lines of a log file already on disk say about its node (rank, group size). */
import { closeSync, openSync, readSync } from 'node:fs';
import { addNodeFacts, nodeFactsOf, type NodeFacts } from '../core/node-facts.js';

const PEEK_BYTES = 1 << 20;

/** Empty when the file is missing or unreadable: the node then takes its rank from the order. */
export function peekNodeFacts(path: string): NodeFacts {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(PEEK_BYTES);
    const read = readSync(fd, buffer, 0, PEEK_BYTES, 0);
    return buffer.toString('utf8', 0, read).split('\n').reduce<NodeFacts>((known, line) => addNodeFacts(known, nodeFactsOf(line)), {});
  } catch {
    return {};
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
