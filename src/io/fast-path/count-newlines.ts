/**
 * The `\n` bytes of a range of a chunk: lines let go unread are still counted (line numbers stay
 * exact). In the kernels' memory, 16 bytes at a compare (the count_lf kernel); elsewhere one
 * Buffer.indexOf (memchr) per line.
 */
import { scanMemory } from './wasm/scan-memory.js';

const LF = 10;

export function countNewlines(chunk: Buffer, start: number, end: number): number {
  if (end <= start) return 0;
  if (scanMemory?.holds(chunk)) return scanMemory.countLf(chunk, start, end);
  let count = 0;
  for (let at = chunk.indexOf(LF, start); at !== -1 && at < end; at = chunk.indexOf(LF, at + 1)) count++;
  return count;
}
