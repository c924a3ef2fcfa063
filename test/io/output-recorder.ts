import type { Child, OutputChunk } from '../../src/io/child-process.js';

/** Drains a child's output in the background, the way the run command will, and lets a test wait on it. */
export class OutputRecorder {
  readonly chunks: OutputChunk[] = [];
  lastChunkAt = 0;
  ended = false;
  readonly done: Promise<void>;

  constructor(child: Child) {
    this.done = (async () => {
      for await (const chunk of child.output) {
        this.chunks.push(chunk);
        this.lastChunkAt = Date.now();
      }
      this.ended = true;
    })();
  }

  text(stream?: OutputChunk['stream']): string {
    return Buffer.concat(
      this.chunks.filter((chunk) => stream === undefined || chunk.stream === stream).map((chunk) => chunk.chunk),
    ).toString('utf8');
  }

  /** Resolves with all text so far once `needle` appeared; rejects after `timeoutMs`. */
  async waitFor(needle: string, timeoutMs = 3_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!this.text().includes(needle)) {
      if (Date.now() > deadline) throw new Error(`no "${needle}" in output within ${timeoutMs} ms:\n${this.text()}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.text();
  }
}
