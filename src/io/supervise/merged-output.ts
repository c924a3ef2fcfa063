/**
 * `run`'s source for the live loop: the child's stdout and stderr merged a whole line at a time
 * (StreamMerger). Each batch of bytes is written to the log before its lines go to the loop, and
 * that write is awaited (the log file's; the copy on stdout never waits, cli/run/stdout-echo.ts,
 * so a reader of ours that stops reading never holds the server back). The partial lines
 * held can be released on demand: the server died, but an orphan of its group still holds the
 * pipes open, so their end may never come.
 *
 * The source ends only when closed, not when the output does: a server that closed its pipes may
 * still run, and the loop's deciders (its silence, --timeout, the probe) go on ticking.
 */
import type { OutputChunk } from '../output-queue.js';
import type { LoopItem } from '../watch-loop.js';
import { StreamMerger, type Merged, type StreamName } from './merge.js';

type Arrival = { result: IteratorResult<OutputChunk> } | { error: unknown };

const DONE: IteratorResult<LoopItem> = { done: true, value: undefined };

export class MergedOutput implements AsyncIterable<LoopItem> {
  private readonly merger = new StreamMerger();
  private readonly chunks: AsyncIterator<OutputChunk>;
  private arrived: Arrival | undefined;
  private inFlight = false;
  private started = false;
  private ended = false;
  private closed = false;
  /** Flushes asked for, then given to the loop and waiting for it to ask for the next item. */
  private asked: Array<() => void> = [];
  private given: Array<() => void> = [];
  private wake: (() => void) | undefined;
  private markDrained: () => void = () => {};
  /** The child's output ended and the loop has read its last lines (or the source closed). */
  readonly drained: Promise<void> = new Promise((resolve) => (this.markDrained = resolve));

  constructor(
    output: AsyncIterable<OutputChunk>,
    /** The log's bytes, whole lines only, as written (the tee and the echo). */
    private readonly write: (bytes: Buffer) => void | Promise<void>,
  ) {
    this.chunks = output[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): AsyncIterator<LoopItem> {
    return {
      next: () => this.next(),
      return: async () => {
        this.close();
        return DONE;
      },
    };
  }

  /** Releases the partial lines held now, each closed with `\n`; resolves once the loop has read them. */
  flush(): Promise<void> {
    if (this.closed || this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      this.asked.push(resolve);
      this.notify();
    });
  }

  /**
   * Waiting on the child's output with nothing of it unread: every chunk taken so far has been
   * through the merger to the log. Asked from a timer, when no hand-over of a chunk is in flight.
   */
  get caughtUp(): boolean {
    return this.closed || this.ended || (this.inFlight && this.arrived === undefined);
  }

  /**
   * The last of the output, for a server left running (--keep-on-fail): `rest` (read from the
   * pipes, not yet taken) after a chunk that arrived and was not yet merged; its whole lines go to
   * the log, and the partial lines held are returned as they are, for the drainer to complete.
   * Then the source closes. Synchronous, so nothing arrives meanwhile.
   */
  finish(rest: OutputChunk[]): Record<StreamName, Buffer> {
    const arrived = this.arrived && 'result' in this.arrived && !this.arrived.result.done ? [this.arrived.result.value] : [];
    this.arrived = undefined;
    const last = Buffer.concat([...arrived, ...rest].map(({ stream, chunk }) => this.merger.push(stream, chunk).bytes));
    if (last.length > 0 && !this.closed) void this.write(last);
    this.close();
    return this.merger.takeHeld();
  }

  /**
   * Gives nothing more. The child's output queue is let go: it drops what comes next rather than
   * let a full pipe stall a server left running (--keep-on-fail).
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.settle([...this.asked.splice(0), ...this.given.splice(0), this.markDrained]);
    this.notify();
    void this.chunks.return?.().catch(() => undefined);
  }

  private async next(): Promise<IteratorResult<LoopItem>> {
    // Asked again, so the loop has read the previous item: a flush in it is done.
    this.settle(this.given.splice(0));
    if (!this.started) {
      // A child's output is live from its first byte.
      this.started = true;
      return { done: false, value: { kind: 'caught-up' } };
    }
    for (;;) {
      if (this.closed) return DONE;
      if (this.ended) {
        this.markDrained();
        await this.idle();
        continue;
      }
      if (this.asked.length > 0) {
        this.given.push(...this.asked.splice(0));
        const item = await this.give(this.merger.end());
        if (item) return item;
        this.settle(this.given.splice(0));
        continue;
      }
      const arrived = this.arrived;
      if (arrived) {
        this.arrived = undefined;
        if ('error' in arrived) throw arrived.error;
        if (arrived.result.done) {
          const rest = await this.give(this.merger.end());
          this.ended = true;
          this.settle(this.asked.splice(0));
          if (rest) return rest;
          continue;
        }
        const { stream, chunk } = arrived.result.value;
        const item = await this.give(this.merger.push(stream, chunk));
        if (item) return item;
        continue;
      }
      if (!this.inFlight) this.request();
      await this.idle();
    }
  }

  /** Until something happens: a chunk arrives, a flush is asked for, the source closes. */
  private idle(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** The merged bytes to the log, then their lines as one item (none when nothing was released). */
  private async give(merged: Merged): Promise<IteratorResult<LoopItem> | undefined> {
    if (merged.bytes.length > 0) await this.write(merged.bytes);
    if (merged.lines.length === 0 || this.closed) return undefined;
    return { done: false, value: { kind: 'lines', lines: merged.lines } };
  }

  /** One read of the child's output in flight at a time; a flush may be asked for meanwhile. */
  private request(): void {
    this.inFlight = true;
    const land = (arrived: Arrival): void => {
      this.inFlight = false;
      this.arrived = arrived;
      this.notify();
    };
    this.chunks.next().then(
      (result) => land({ result }),
      (error: unknown) => land({ error }),
    );
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private settle(waiting: Array<() => void>): void {
    for (const resolve of waiting) resolve();
  }
}
