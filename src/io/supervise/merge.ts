/**
 * Merges a child's stdout and stderr into one log, a whole line (or `\r` frame) at a time: each stream keeps
 * its own partial line, so half a line on one stream is never glued to a line of the other.
 */
import { LineSplitter } from '../line-splitter.js';

export type StreamName = 'stdout' | 'stderr';

export interface MergedLine {
  /** The frame's text, as `LineSplitter` cut it. */
  text: string;
  /** 1-based line number in the merged log (the tee file), counted by `\n`. */
  lineNo: number;
  /** The stream it was cut from: a traceback is read per stream (core/traceback.ts). */
  stream: StreamName;
}

export interface Merged {
  /** Bytes to append to the merged log, unchanged except that only whole lines or frames are released. */
  bytes: Buffer;
  lines: MergedLine[];
}

/** A partial line longer than this is released as it is (a server printing one endless line). */
const MAX_HELD_BYTES = 1 << 20;
const LF = 0x0a;
const CR = 0x0d;

interface StreamState {
  splitter: LineSplitter;
  /** Bytes of the current partial line, not yet released to the merged log. */
  held: Buffer[];
  heldBytes: number;
  /** `\n` bytes this stream released so far: its splitter's line number minus one. */
  newlines: number;
}

export class StreamMerger {
  private readonly streams = new Map<StreamName, StreamState>();
  /** `\n` bytes in the merged log so far. */
  private newlines = 0;

  constructor(private readonly options: { maxLineBytes?: number } = {}) {}

  get truncatedBytes(): number {
    let total = 0;
    for (const state of this.streams.values()) total += state.splitter.truncatedBytes;
    return total;
  }

  push(stream: StreamName, chunk: Buffer): Merged {
    const state = this.state(stream);
    const cut = Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR)) + 1;
    const split = state.splitter.push(chunk);
    if (cut === 0 && state.heldBytes + chunk.length <= MAX_HELD_BYTES) {
      state.held.push(Buffer.from(chunk));
      state.heldBytes += chunk.length;
      return { bytes: Buffer.alloc(0), lines: this.number(stream, state, split) };
    }
    const end = cut === 0 ? chunk.length : cut;
    const bytes = Buffer.concat([...state.held, chunk.subarray(0, end)]);
    state.held = end < chunk.length ? [Buffer.from(chunk.subarray(end))] : [];
    state.heldBytes = chunk.length - end;
    const lines = this.number(stream, state, split);
    this.release(state, bytes);
    return { bytes, lines };
  }

  /** Releases every partial line (the streams ended, or their writer died), each closed with `\n`. */
  end(): Merged {
    const parts: Buffer[] = [];
    const lines: MergedLine[] = [];
    for (const [stream, state] of this.streams) {
      lines.push(...this.number(stream, state, state.splitter.end()));
      if (state.heldBytes === 0) continue;
      const bytes = Buffer.concat([...state.held, Buffer.from('\n')]);
      state.held = [];
      state.heldBytes = 0;
      this.release(state, bytes);
      parts.push(bytes);
    }
    return { bytes: Buffer.concat(parts), lines };
  }

  /**
   * Takes the partial lines held, as they are, without closing them: for whoever reads on from
   * the same streams (`--keep-on-fail`'s drainer), who completes them.
   */
  takeHeld(): Record<StreamName, Buffer> {
    const held = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    for (const [name, state] of this.streams) {
      held[name] = Buffer.concat(state.held);
      state.held = [];
      state.heldBytes = 0;
    }
    return held;
  }

  private state(stream: StreamName): StreamState {
    let state = this.streams.get(stream);
    if (!state) {
      state = { splitter: new LineSplitter({ maxLineBytes: this.options.maxLineBytes }), held: [], heldBytes: 0, newlines: 0 };
      this.streams.set(stream, state);
    }
    return state;
  }

  /** Maps the stream's own line numbers onto the merged log, where this stream's bytes go next. */
  private number(stream: StreamName, state: StreamState, split: { text: string; lineNo: number }[]): MergedLine[] {
    const base = this.newlines - state.newlines;
    return split.map((line) => ({ text: line.text, lineNo: base + line.lineNo, stream }));
  }

  private release(state: StreamState, bytes: Buffer): void {
    let count = 0;
    for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) count++;
    state.newlines += count;
    this.newlines += count;
  }
}
