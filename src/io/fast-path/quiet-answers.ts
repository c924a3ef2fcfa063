/**
 * Core's answers to `Skippable.quietText`, remembered by a line's bytes: while the pack and the
 * scope stay the same the answer depends on the text alone (core/skippable.ts), and the lines
 * that hold a literal yet match nothing come back by the ten thousand (each NCCL rank's
 * `NVLS multicast support is not available on dev 0`). A line met again is found by a hash of
 * its bytes and a compare, never decoded. Bounded: a log's few repeated shapes are kept, not its
 * variety.
 */
import type { CompiledPack } from '../../core/pack-types.js';
import type { QuietScope } from '../../core/prefilter.js';
import type { Skippable } from '../../core/skippable.js';

/** Lines remembered at most; then all are forgotten and the hot ones come back at once. */
const MAX_ANSWERS = 256;

interface Answer {
  /** The line's bytes (a copy: the chunk's buffer is reused). */
  bytes: Buffer;
  quiet: boolean;
}

export class QuietAnswers {
  /** By the hash of the line's bytes; two lines with one hash take turns (the bytes are compared). */
  private readonly answers = new Map<number, Answer>();
  private pack: CompiledPack | undefined;
  private scope: QuietScope | undefined;

  /** Core's `quietText` for the line `bytes[start, end)` now, from memory when the same line was asked about in the same pack and scope. */
  quiet(now: Skippable, bytes: Buffer, start: number, end: number): boolean {
    if (now.pack !== this.pack || now.scope !== this.scope) {
      this.answers.clear();
      this.pack = now.pack;
      this.scope = now.scope;
    }
    const hash = hashOf(bytes, start, end);
    const known = this.answers.get(hash);
    if (known !== undefined && bytes.compare(known.bytes, 0, known.bytes.length, start, end) === 0) return known.quiet;
    const quiet = now.quietText(bytes.toString('utf8', start, end));
    if (this.answers.size >= MAX_ANSWERS) this.answers.clear();
    this.answers.set(hash, { bytes: Buffer.from(bytes.subarray(start, end)), quiet });
    return quiet;
  }
}

/** FNV-1a over the bytes. */
function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let at = start; at < end; at++) hash = Math.imul(hash ^ bytes[at]!, 0x01000193);
  return hash >>> 0;
}
