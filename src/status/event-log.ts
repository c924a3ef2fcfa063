/**
 * The events a start has produced, numbered, for `/v1/events` and `spinup attach`: a client that
 * reconnects with `Last-Event-ID: N` gets every event after N that is still kept. Bounded in
 * count and bytes, oldest first out, so a start that logs a million progress frames keeps a
 * few megabytes, not all of them. Pure: no I/O.
 */

export interface LoggedEvent {
  /** 1, 2, 3...: the SSE `id:`. */
  id: number;
  /** The SSE `event:`: the JSON event's own type. */
  type: string;
  /** The JSON text of the event, one line. */
  data: string;
}

export interface EventLogLimits {
  maxEvents?: number;
  maxBytes?: number;
}

const DEFAULT_MAX_EVENTS = 4096;
const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;

export class EventLog {
  private readonly entries: LoggedEvent[] = [];
  /** Index of the oldest kept entry: dropping from the front without shifting the array each time. */
  private head = 0;
  private bytes = 0;
  private lastId = 0;
  private readonly maxEvents: number;
  private readonly maxBytes: number;

  constructor(limits: EventLogLimits = {}) {
    this.maxEvents = limits.maxEvents ?? DEFAULT_MAX_EVENTS;
    this.maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  get latestId(): number {
    return this.lastId;
  }

  /** The id of the oldest event still kept (latestId + 1 when none is). */
  get oldestId(): number {
    return this.entries[this.head]?.id ?? this.lastId + 1;
  }

  append(type: string, data: string): LoggedEvent {
    const entry: LoggedEvent = { id: ++this.lastId, type, data };
    this.entries.push(entry);
    this.bytes += data.length;
    while (this.size > 1 && (this.size > this.maxEvents || this.bytes > this.maxBytes)) {
      this.bytes -= this.entries[this.head]!.data.length;
      this.entries[this.head++] = undefined as unknown as LoggedEvent;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
    return entry;
  }

  /** The kept events with an id above `afterId` (0: all of them), at most `limit`. Ids are consecutive, so this is a slice. */
  since(afterId: number, limit = Infinity): LoggedEvent[] {
    const skip = Math.max(0, afterId - this.oldestId + 1);
    const start = this.head + skip;
    return this.entries.slice(start, Math.min(this.entries.length, start + limit));
  }

  private get size(): number {
    return this.entries.length - this.head;
  }
}
