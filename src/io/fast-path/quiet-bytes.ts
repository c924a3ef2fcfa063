/**
 * Lines already found quiet before a verdict, by their bytes: a flood repeats a few such lines
 * by the ten thousand (NCCL's `NVLS multicast support is not available on dev 0` from each of
 * 8 ranks holds a failure rule's literal), and telling one again by its bytes costs a hash and
 * a compare, where the line scanner, decoding it and looking its text up cost ten times more.
 * Only lines without a clock stamp are kept: for those the answer depends on nothing but the
 * bytes and the pack (QuietLines.classify). After a verdict, lines whose literal acts on nothing,
 * per pack and verdict (after-verdict.ts).
 */
import { occursAt } from './byte-literal-scanner.js';

/** Lines kept: a flood's few repeated shapes, not a log's variety. */
const MAX_LINES = 64;
/** Longer lines are not kept (a compare of them would cost what reading them does). */
const MAX_LINE_BYTES = 512;

export class QuietBytes {
  private readonly lines = new Map<number, Buffer>();
  private owner: object | undefined;

  /** `maxLines`: lines kept at most; then all are forgotten, and the ones that come back are kept again. */
  constructor(private readonly maxLines = MAX_LINES) {}

  /** Whether `chunk[start, end)` is a line kept for `owner` (the pack). */
  has(owner: object, chunk: Uint8Array, start: number, end: number): boolean {
    if (owner !== this.owner || end - start > MAX_LINE_BYTES) return false;
    const kept = this.lines.get(hashOf(chunk, start, end));
    return kept !== undefined && kept.length === end - start && occursAt(chunk, start, kept);
  }

  /** Keeps `chunk[start, end)` for `owner`; another owner's lines are forgotten. */
  add(owner: object, chunk: Uint8Array, start: number, end: number): void {
    if (end - start > MAX_LINE_BYTES) return;
    if (owner !== this.owner || this.lines.size >= this.maxLines) {
      this.lines.clear();
      this.owner = owner;
    }
    this.lines.set(hashOf(chunk, start, end), Buffer.from(chunk.subarray(start, end)));
  }
}

/** FNV-1a over the bytes (a collision only costs the compare, which tells the lines apart). */
function hashOf(chunk: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let k = start; k < end; k++) hash = Math.imul(hash ^ chunk[k]!, 0x01000193);
  return hash >>> 0;
}
