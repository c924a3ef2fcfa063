/**
 * The fast path's way through a serving server's traffic: once a verdict is given, nothing but
 * a new run (a restart marker) and, after a ready verdict, a fatal failure can change what spinup
 * reports. So whole runs of lines are let go unread up to the next line that holds a literal of
 * those rules, found by one scan of the chunk (ChunkLiteralScanner), never line by line.
 *
 * A line found that way is let go as well when reading it would change nothing after all: core
 * says so (Skippable.quietText: no new run, no fatal failure after ready), and a line it calls
 * quiet is told again by its bytes (quiet-bytes.ts; NCCL's `NVLS multicast support is not
 * available on dev 0`, printed by each rank at every communicator set-up, holds a failure rule's
 * literal).
 * A colour code could join text into a literal (`Kil\x1b[0mled`), so a line with one is found
 * too, and let go when it shows no literal once its codes are stripped (in its bytes when they
 * are the usual CSI codes: strip-codes.ts; else the way the classifier reads it, frames and all).
 *
 * The clock then moves with the lines read and with a chunk's last whole line at least every
 * 64 KiB let go, not with every line: a timestamp, a progress bar or a gap marker in between is
 * not seen. The classifier measures
 * nothing after a verdict, but the times it gives later events (a failure after ready) may
 * differ from reading every line; a new run starts a clock of its own (core/timeline.ts), so its
 * times do not.
 */
import { guardFrames, MAX_FRAME_CHARS } from '../../core/line-guard.js';
import { LiteralScanner } from '../../core/literal-scanner.js';
import type { CompiledPack } from '../../core/pack-types.js';
import type { Skippable } from '../../core/skippable.js';
import { ByteLiteralScanner } from './byte-literal-scanner.js';
import { ChunkLiteralScanner } from './chunk-literal-scanner.js';
import { QuietBytes } from './quiet-bytes.js';
import { stripCodes } from './strip-codes.js';

/** The line guard strips colour codes (and their pasted `^[[` copies), which could join text into a literal. */
export const ESCAPES = ['\x1b', '^[['];
const LF = 10;
const ESC = 0x1b;
/**
 * A line at least every so many bytes let go is read to keep the clock going: a chunk's last
 * whole line, once this much went unread since a line was read. As much as a pipe gives at a
 * time: a big read of a file and the line its end cut (read at the head of the next one)
 * cost one such line, not two.
 */
const CLOCK_BYTES = 64 * 1024;
/**
 * Quiet lines kept: the few that repeat by the thousand (each NCCL rank's NVLS line, Gloo's
 * connection lines) outlast a serving log's variety of timestamped ones between two clears.
 */
const MAX_QUIET_LINES = 256;

export class AfterVerdict {
  private scanners: VerdictScanners[] | null | undefined;
  /** Bytes let go since the last line said to be due (see CLOCK_BYTES). */
  private unreadBytes = 0;
  /**
   * Lines found by the scan that core called quiet, by their bytes, per pack and verdict (the
   * owner is the verdict's scanners): the answer depends on nothing else (Skippable.quietText).
   */
  private readonly quietLines = new QuietBytes(MAX_QUIET_LINES);
  /**
   * A line with its colour codes stripped. No longer than a frame the guard leaves uncut, so a
   * literal in a frame as the classifier reads it is in here too.
   */
  private readonly stripped = Buffer.alloc(MAX_FRAME_CHARS);

  /** `maxLineBytes`: the splitter's cap; a longer line is cut before the classifier reads it, so it is read, not checked here. */
  constructor(private readonly maxLineBytes: number) {}

  /** A new chunk in a reused buffer: what was found in the last one is forgotten. */
  newChunk(): void {
    this.scanners?.forEach((scanner) => scanner.chunk?.forget());
  }

  /**
   * After a verdict, where in `chunk[start, end)` the next line starts that must be read: the
   * first line that can still matter, or else, once CLOCK_BYTES have been let go since the last
   * line due, the chunk's last whole line, read to keep the clock going. Every line before it is
   * let go unread (all of them, to the last `\n`, when none is due).
   */
  nextDue(now: Skippable, chunk: Buffer, start: number, end: number): number {
    const scanners = scannersFor(now.pack);
    if (scanners !== this.scanners) {
      scanners?.forEach((scanner) => scanner.chunk?.forget());
      this.scanners = scanners;
    }
    const lastLf = chunk.lastIndexOf(LF, end - 1);
    if (!scanners || lastLf < start) return start;
    const which = scanners[now.verdict === 'ready' ? 0 : 1]!;
    const scanner = (which.chunk ??= new ChunkLiteralScanner(which.bytes));
    for (let from = start; from <= lastLf; ) {
      const hit = scanner.nextLine(chunk, from, lastLf);
      if (hit === -1) break;
      const lineEnd = chunk.indexOf(LF, hit);
      if (this.mustRead(now, which, chunk, hit, lineEnd)) return this.due(hit);
      from = lineEnd + 1;
    }
    const last = Math.max(start, chunk.lastIndexOf(LF, lastLf - 1) + 1);
    this.unreadBytes += last - start;
    if (this.unreadBytes >= CLOCK_BYTES) return this.due(last);
    this.unreadBytes += lastLf + 1 - last;
    return lastLf + 1;
  }

  /** The line at `at` is due: the clock moves with it. */
  private due(at: number): number {
    this.unreadBytes = 0;
    return at;
  }

  /**
   * Whether the line `chunk[start, end)`, found by the chunk scan, must be read: it holds a
   * literal as the classifier reads it (a line with colour codes: once they are stripped) and
   * core does not call it quiet (a line it did is told again by its bytes).
   */
  private mustRead(now: Skippable, scanners: VerdictScanners, chunk: Buffer, start: number, end: number): boolean {
    if (end - start > this.maxLineBytes) return true;
    if (hasEscape(chunk, start, end) && !this.holdsLiteral(scanners, chunk, start, end)) return false;
    if (this.quietLines.has(scanners, chunk, start, end)) return false;
    if (!now.quietText(chunk.toString('utf8', start, end))) return true;
    this.quietLines.add(scanners, chunk, start, end);
    return false;
  }

  /** Whether the line `chunk[start, end)`, which holds a colour code, holds a literal once the codes are stripped. */
  private holdsLiteral(scanners: VerdictScanners, chunk: Buffer, start: number, end: number): boolean {
    const length = stripCodes(chunk, start, end, this.stripped);
    if (length >= 0) {
      const bytes = (scanners.stripped ??= new ByteLiteralScanner(byteLiterals(scanners.texts)!.map((literal) => ({ bytes: literal, mask: 1 }))));
      return bytes.scan(this.stripped, 0, length, 1) !== 0;
    }
    const text = (scanners.text ??= new LiteralScanner(scanners.texts));
    return guardFrames(chunk.toString('utf8', start, end)).some((frame) => text.hasAny(frame));
  }
}

/**
 * Per pack, after ready [0] and after any other verdict [1]: the literals, as bytes for the
 * chunk scanner (colour codes too) and for a line with its codes stripped, and as text for a
 * line the guard must read. Each scanner is built when first needed (a run that never gives a
 * verdict, or meets no colour code, pays for none of them).
 */
interface VerdictScanners {
  bytes: Buffer[];
  texts: string[];
  chunk?: ChunkLiteralScanner;
  stripped?: ByteLiteralScanner;
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
