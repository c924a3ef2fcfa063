/**
 * One `/v1/events` subscriber. It pulls from the event log what it has not had yet (the replay,
 * then each new event), and only while the response's own write buffer holds less than
 * `maxBufferedBytes`: the rest waits in the log, and goes out as the client reads ('drain'). So
 * a client that stops reading (a stuck browser tab, a paused `attach`) costs at most its buffer;
 * once it falls behind what the log keeps, it is dropped, and may reconnect with Last-Event-ID.
 */
import type { ServerResponse } from 'node:http';
import type { EventLog, LoggedEvent } from '../status/event-log.js';

export const DEFAULT_SSE_BUFFER_BYTES = 256 * 1024;

export interface SseClientOptions {
  response: ServerResponse;
  log: EventLog;
  /** Last-Event-ID: the client has every event up to this one (0: none). */
  afterId: number;
  maxBufferedBytes: number;
  onGone: (client: SseClient) => void;
}

export class SseClient {
  private closed = false;
  private removed = false;
  /** Dropped for falling behind what the event log keeps. */
  overflowed = false;

  private readonly response: ServerResponse;
  private readonly log: EventLog;
  private readonly maxBufferedBytes: number;
  /** The id of the last event this client has. */
  private sentId: number;
  /** Events up to this id were gone before this client came: missing them is not falling behind. */
  private readonly goneBefore: number;

  constructor(private readonly options: SseClientOptions) {
    ({ response: this.response, log: this.log, maxBufferedBytes: this.maxBufferedBytes, afterId: this.sentId } = options);
    this.response.on('drain', () => this.pump());
    this.response.on('close', () => this.gone());
    this.goneBefore = this.log.droppedUpTo;
    if (this.sentId > 0 && this.sentId < this.goneBefore) {
      const kept = this.log.keptStateEvents(this.sentId, this.goneBefore);
      const but = kept > 0 ? ` but for the ${kept} that define the state (family, stages, verdict)` : '';
      this.comment(`events ${this.sentId + 1}-${this.goneBefore} are no longer kept${but}`);
    }
  }

  /** Bytes written to this client that it has not taken yet (beyond what the kernel holds). */
  get buffered(): number {
    return this.response.writableLength;
  }

  /** Sends what the log holds beyond what this client has, as far as its buffer allows. */
  pump(): void {
    if (this.closed) return;
    // Progress it had not had yet was rotated out while it was here: it fell behind. (What the
    // log kept of it, the state-defining events, it would get on reconnecting with Last-Event-ID.)
    if (this.log.droppedUpTo > Math.max(this.sentId, this.goneBefore)) return this.drop();
    while (this.response.writableLength < this.maxBufferedBytes) {
      const [next] = this.log.since(this.sentId, 1);
      if (!next) return;
      this.response.write(eventText(next));
      this.sentId = next.id;
    }
  }

  /** A comment line: keeps proxies and idle timeouts from closing a quiet stream (a busy one needs none). */
  comment(text: string): void {
    if (!this.closed && this.response.writableLength < this.maxBufferedBytes) this.response.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.response.end();
  }

  private drop(): void {
    this.closed = true;
    this.overflowed = true;
    this.response.destroy();
    this.gone();
  }

  private gone(): void {
    this.closed = true;
    if (this.removed) return;
    this.removed = true;
    this.options.onGone(this);
  }
}

function eventText(entry: LoggedEvent): string {
  return `id: ${entry.id}\nevent: ${entry.type}\ndata: ${entry.data}\n\n`;
}
