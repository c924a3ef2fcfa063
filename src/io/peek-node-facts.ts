/** What the first lines of a log file already on disk say about its node (rank, group size). */
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { addNodeFacts, nodeFactsOf, type NodeFacts } from '../core/node-facts.js';

const PEEK_BYTES = 1 << 20;
/** Of a .gz, the compressed bytes inflated: logs compress about tenfold, so about the plain peek. */
const GZIP_PEEK_BYTES = 1 << 16;

/** Empty when the file is missing or unreadable: the node then takes its rank from the order. */
export function peekNodeFacts(path: string): NodeFacts {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(PEEK_BYTES);
    const read = readSync(fd, buffer, 0, PEEK_BYTES, 0);
    return headText(buffer.subarray(0, read)).split('\n').reduce<NodeFacts>((known, line) => addNodeFacts(known, nodeFactsOf(line)), {});
  } catch {
    return {};
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The head as text; a .gz (logrotate's) inflated as far as its first bytes go, as watch decodes it. */
function headText(head: Buffer): string {
  if (head[0] !== 0x1f || head[1] !== 0x8b) return head.toString('utf8');
  // Loaded only for a .gz: zlib is no part of reading a plain log.
  const zlib = createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib');
  return zlib.gunzipSync(head.subarray(0, GZIP_PEEK_BYTES), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('utf8');
}

