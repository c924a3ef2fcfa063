/** One raw read from a child's stdout or stderr. A chunk may end in the middle of a line. */
export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  chunk: Buffer;
}

interface OutputQueueOptions {
  /** Bytes buffered before `onPressure(true)` asks the producer to pause. */
  highWaterBytes: number;
  onPressure: (paused: boolean) => void;
}

/**
 * A single-consumer async queue of output chunks. It applies backpressure instead of growing without bound, so
 * a stalled consumer makes the child block on write the way a plain pipe would.
 */
export class OutputQueue implements AsyncIterable<OutputChunk> {
  private readonly items: OutputChunk[] = [];
  private bufferedBytes = 0;
  private paused = false;
  private ended = false;
  private abandoned = false;
  private iterated = false;
  private wake: (() => void) | undefined;

  constructor(private readonly options: OutputQueueOptions) {}

  push(item: OutputChunk): void {
    if (this.ended || this.abandoned) return;
    this.items.push(item);
    this.bufferedBytes += item.chunk.length;
    if (!this.paused && this.bufferedBytes >= this.options.highWaterBytes) this.setPaused(true);
    this.notify();
  }

  /** Everything queued and not yet read, taken out; the queue gives nothing more (the output was handed over). */
  takeRest(): OutputChunk[] {
    const rest = this.items.splice(0);
    this.bufferedBytes = 0;
    this.abandoned = true;
    this.notify();
    return rest;
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  [Symbol.asyncIterator](): AsyncIterator<OutputChunk> {
    if (this.iterated) throw new Error('child output can be iterated only once');
    this.iterated = true;
    return {
      next: () => this.next(),
      return: async () => {
        // The consumer left early: drop what comes next rather than stall the child.
        this.abandoned = true;
        this.items.length = 0;
        this.setPaused(false);
        return { done: true, value: undefined };
      },
    };
  }

  private async next(): Promise<IteratorResult<OutputChunk>> {
    while (this.items.length === 0 && !this.ended && !this.abandoned) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    const item = this.abandoned ? undefined : this.items.shift();
    if (item === undefined) return { done: true, value: undefined };
    this.bufferedBytes -= item.chunk.length;
    if (this.paused && this.bufferedBytes < this.options.highWaterBytes / 2) this.setPaused(false);
    return { done: false, value: item };
  }

  private setPaused(paused: boolean): void {
    if (this.paused === paused) return;
    this.paused = paused;
    this.options.onPressure(paused);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
