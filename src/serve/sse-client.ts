/**
 * One `/v1/events` subscriber. What it has not read yet waits in the response's own write buffer,
 * and only up to `maxBufferedBytes`: a client that stops reading (a stuck browser tab, a paused
 * `attach`) is dropped past that, instead of making spinup hold every event for it. It can
 * reconnect with `Last-Event-ID` and get what it missed from the event log.
 */
import type { ServerResponse } from 'node:http';
import type { LoggedEvent } from '../status/event-log.js';

export const DEFAULT_SSE_BUFFER_BYTES = 256 * 1024;

export class SseClient {
  private closed = false;
  private removed = false;
  /** Dropped for leaving more than the buffer unread. */
  overflowed = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly maxBufferedBytes: number,
    private readonly onGone: (client: SseClient) => void,
  ) {
    response.on('close', () => this.gone());
  }

  /** Bytes written to this client that it has not taken yet (beyond what the kernel holds). */
  get buffered(): number {
    return this.response.writableLength;
  }

  send(entry: LoggedEvent): void {
    this.write(`id: ${entry.id}\nevent: ${entry.type}\ndata: ${entry.data}\n\n`);
  }

  /** A comment line: keeps proxies and idle timeouts from closing a quiet stream. */
  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.response.end();
  }

  private write(text: string): void {
    if (this.closed) return;
    if (this.response.writableLength + Buffer.byteLength(text) > this.maxBufferedBytes) {
      this.closed = true;
      this.overflowed = true;
      this.response.destroy();
      this.gone();
      return;
    }
    this.response.write(text);
  }

  private gone(): void {
    this.closed = true;
    if (this.removed) return;
    this.removed = true;
    this.onGone(this);
  }
}
