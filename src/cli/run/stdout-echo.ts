/**
 * `run`'s copy of the server's lines on stdout, decoupled from reading the server. A reader that
 * stops reading (`spinup run … | less` left paused) must not stop spinup reading the server: the
 * server would block on its own pipe, fall silent and be called STALLED for our reader's sake.
 * So a write here never waits. Node buffers what the reader has not taken yet; past `limitBytes`
 * of that, whole lines are dropped and counted, and once the reader has caught up (the stream's
 * 'drain') one line says how many it missed. The log file, written before this, keeps them all.
 */
import type { Writable } from 'node:stream';
import { isWritable } from '../io-context.js';
import type { Sink } from '../sinks/sink.js';

/** What a paused reader may hold back before lines are dropped: about 10,000 lines of a server's log. */
export const ECHO_LIMIT_BYTES = 1 << 20;

const NEWLINE = 0x0a;

export class StdoutEcho implements Sink {
  /** Lines dropped since the reader stopped reading; counting means the stream is past its limit. */
  private dropped = 0;
  private dropping = false;

  constructor(
    private readonly stream: Writable,
    private readonly options: {
      limitBytes: number;
      /** The log file as `run` names it: known once it is opened, after the outputs are made. */
      logShown: () => string;
    },
  ) {}

  /** Whole lines, as the server wrote them. */
  output(bytes: Buffer): void {
    if (!isWritable(this.stream)) return;
    if (this.dropping) {
      this.dropped += lineCount(bytes);
      return;
    }
    if (this.stream.writableLength + bytes.length <= this.options.limitBytes) {
      this.stream.write(bytes);
      return;
    }
    this.dropping = true;
    this.dropped = lineCount(bytes);
    // Past the limit, an earlier write was refused (Node's high-water mark is far below it), so
    // 'drain' comes when the reader has taken everything: the note follows the last line shown.
    this.stream.once('drain', () => this.resume());
  }

  /** The run is over: a count still open is said now (the reader gets it after the last line shown). */
  async close(): Promise<void> {
    if (this.dropping) this.resume();
  }

  private resume(): void {
    if (!this.dropping) return;
    this.dropping = false;
    const count = this.dropped;
    this.dropped = 0;
    if (count > 0 && isWritable(this.stream)) this.stream.write(droppedNote(count, this.options.logShown()));
  }
}

export function droppedNote(count: number, logShown: string): string {
  return `spinup: ${count} line${count === 1 ? '' : 's'} not shown: stdout was not reading (${logShown} has every line)\n`;
}

function lineCount(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}
