/**
 * The fast path's way through a serving server's traffic: once a verdict is given, nothing but
 * a new run (a restart marker) and, after a ready verdict, a fatal failure can change what spinup
 * reports. So whole runs of lines are let go unread up to the next line that holds a literal of
 * those rules, found by one scan of the chunk (ChunkLiteralScanner), never line by line.
 *
 * A colour code could join text into a literal (`Kil\x1b[0mled`), so a line with one is found
 * too, then read the way the classifier reads it (frames, codes stripped) and let go as well when
 * that shows no literal.
 *
 * The clock then moves with the lines read and with the last whole line of each chunk, not with
 * every line: a timestamp, a progress bar or a gap marker in between is not seen. The classifier
 * measures nothing after a verdict, but the times it gives later events (a failure after ready)
 * may differ from reading every line; a new run starts a clock of its own (core/timeline.ts), so
 * its times do not.
 */
import { guardFrames } from '../../core/line-guard.js';
import { LiteralScanner } from '../../core/literal-scanner.js';
import type { CompiledPack } from '../../core/pack-types.js';
import { ChunkLiteralScanner } from './chunk-literal-scanner.js';

/** The line guard strips colour codes (and their pasted `^[[` copies), which could join text into a literal. */
export const ESCAPES = ['\x1b', '^[['];
const LF = 10;
const ESC = 0x1b;
/** Longer lines are cut by the splitter before the classifier reads them: read, not checked here. */
const MAX_CHECKED_LINE = 1 << 16;

export class AfterVerdict {
  private scanners: VerdictScanners[] | null | undefined;

  /** A new chunk in a reused buffer: what was found in the last one is forgotten. */
  newChunk(): void {
    this.scanners?.forEach((scanner) => scanner.chunk?.forget());
  }

  /**
   * After a verdict, where in `chunk[start, end)` the next line starts that must be read: the
   * first line that can still matter, or else the chunk's last whole line, read to keep the
   * clock going. Every line before it is let go unread.
   */
  nextDue(pack: CompiledPack, verdict: 'ready' | 'other', chunk: Buffer, start: number, end: number): number {
    const scanners = scannersFor(pack);
    if (scanners !== this.scanners) {
      scanners?.forEach((scanner) => scanner.chunk?.forget());
      this.scanners = scanners;
    }
    const lastLf = chunk.lastIndexOf(LF, end - 1);
    if (!scanners || lastLf < start) return start;
    const which = scanners[verdict === 'ready' ? 0 : 1]!;
    const scanner = (which.chunk ??= new ChunkLiteralScanner(which.bytes));
    for (let from = start; from <= lastLf; ) {
      const hit = scanner.nextLine(chunk, from, lastLf);
      if (hit === -1) break;
      const lineEnd = chunk.indexOf(LF, hit);
      if (readsAsLiteral(which, chunk, hit, lineEnd)) return hit;
      from = lineEnd + 1;
    }
    return lastLf > start ? Math.max(start, chunk.lastIndexOf(LF, lastLf - 1) + 1) : start;
  }
}

/**
 * Per pack, after ready [0] and after any other verdict [1]: the literals, as bytes for the
 * chunk scanner and as text for a line with colour codes. Both scanners are built when first
 * needed (a run that never gives a verdict, or meets no colour code, pays for neither).
 */
interface VerdictScanners {
  bytes: Buffer[];
  texts: string[];
  chunk?: ChunkLiteralScanner;
  text?: LiteralScanner;
}

const cache = new WeakMap<CompiledPack, VerdictScanners[] | null>();

/** Null when some rule's literals are unknown or cannot be searched as bytes: nothing is let go. */
function scannersFor(pack: CompiledPack): VerdictScanners[] | null {
  let scanners = cache.get(pack);
  if (scanners === undefined) {
    const quiet = pack.prefilter.quietLiterals();
    const sets = quiet ? [[...quiet.restart, ...quiet.afterReady], quiet.restart] : [];
    const bytes = sets.map((texts) => byteLiterals([...texts, ...ESCAPES]));
    scanners = quiet && bytes.every((set) => set !== null) ? sets.map((texts, k) => ({ bytes: bytes[k]!, texts: [...new Set(texts)] })) : null;
    cache.set(pack, scanners);
  }
  return scanners;
}

/**
 * Whether the line `chunk[start, end)`, found by the chunk scan, holds a literal as the
 * classifier reads it: always when it holds no colour code (the literal is there as it is);
 * else only when its frames, codes stripped, do.
 */
function readsAsLiteral(scanners: VerdictScanners, chunk: Buffer, start: number, end: number): boolean {
  if (end - start > MAX_CHECKED_LINE || !hasEscape(chunk, start, end)) return true;
  const text = (scanners.text ??= new LiteralScanner(scanners.texts));
  return guardFrames(chunk.toString('utf8', start, end)).some((frame) => text.hasAny(frame));
}

function hasEscape(chunk: Buffer, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const byte = chunk[at]!;
    if (byte === ESC || (byte === 0x5e && chunk[at + 1] === 0x5b && chunk[at + 2] === 0x5b)) return true;
  }
  return false;
}

/**
 * The literals as bytes, or null when one cannot be searched as bytes: text the decoder could
 * produce from other bytes (U+FFFD for invalid UTF-8), or a line break.
 */
export function byteLiterals(texts: readonly string[]): Buffer[] | null {
  const literals: Buffer[] = [];
  for (const text of new Set(texts)) {
    const bytes = Buffer.from(text);
    if (text.includes('\uFFFD') || bytes.toString() !== text || /[\r\n]/.test(text)) return null;
    literals.push(bytes);
  }
  return literals;
}
