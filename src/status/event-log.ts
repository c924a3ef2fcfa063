/**
 * The events a start has produced, numbered, for `/v1/events` and `spinup attach`: a client that
 * reconnects with `Last-Event-ID: N` gets every event after N that is still kept. Bounded in
 * count and bytes, oldest first out, so a start that logs a million progress frames keeps a
 * few megabytes, not all of them. The events that define the state (the family, each stage, a
 * restart, a failure after ready, the verdict) are kept apart from that ring: a client that
 * comes late, after thousands of progress frames, still learns what the start is and where it
 * stands, not only the last bars. Pure: no I/O.
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
  /** Of the state-defining events, kept apart (a start that restarts in a loop has many). */
  maxStateEvents?: number;
}

/** The event types that define a start's state: never rotated out by the others. */
export const STATE_EVENT_TYPES: ReadonlySet<string> = new Set(['family', 'stage', 'restart', 'after_ready_failure', 'verdict']);

const DEFAULT_MAX_EVENTS = 4096;
const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
const DEFAULT_MAX_STATE_EVENTS = 1024;
const MAX_STATE_BYTES = 1024 * 1024;

/** Events in id order, bounded, dropped from the front without shifting the array each time. */
class Ring {
  private readonly entries: LoggedEvent[] = [];
  private head = 0;
  private bytes = 0;

  constructor(
    private readonly maxEvents: number,
    private readonly maxBytes: number,
  ) {}

  get oldest(): LoggedEvent | undefined {
    return this.entries[this.head];
  }

  /** Adds `entry`; returns the highest id it dropped to stay in bounds (0: none). */
  push(entry: LoggedEvent): number {
    this.entries.push(entry);
    this.bytes += entry.data.length;
    let dropped = 0;
    while (this.size > 1 && (this.size > this.maxEvents || this.bytes > this.maxBytes)) {
      const gone = this.entries[this.head]!;
      dropped = gone.id;
      this.bytes -= gone.data.length;
      this.entries[this.head++] = undefined as unknown as LoggedEvent;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
    return dropped;
  }

  /** Index of the first kept entry with an id above `afterId` (ids only grow: a binary search). */
  firstAfter(afterId: number): number {
    let low = this.head;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.entries[mid]!.id <= afterId) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  at(index: number): LoggedEvent | undefined {
    return this.entries[index];
  }

  private get size(): number {
    return this.entries.length - this.head;
  }
}

export class EventLog {
  private readonly others: Ring;
  private readonly states: Ring;
  private lastId = 0;
  private droppedId = 0;

  constructor(limits: EventLogLimits = {}) {
    this.others = new Ring(limits.maxEvents ?? DEFAULT_MAX_EVENTS, limits.maxBytes ?? DEFAULT_MAX_BYTES);
    this.states = new Ring(limits.maxStateEvents ?? DEFAULT_MAX_STATE_EVENTS, MAX_STATE_BYTES);
  }

  get latestId(): number {
    return this.lastId;
  }

  /** The id of the oldest event still kept (latestId + 1 when none is). */
  get oldestId(): number {
    return Math.min(this.states.oldest?.id ?? Infinity, this.others.oldest?.id ?? Infinity, this.lastId + 1);
  }

  /** The highest id no longer kept (0: none was dropped): a client that had not reached it missed events. */
  get droppedUpTo(): number {
    return this.droppedId;
  }

  append(type: string, data: string): LoggedEvent {
    const entry: LoggedEvent = { id: ++this.lastId, type, data };
    const dropped = (STATE_EVENT_TYPES.has(type) ? this.states : this.others).push(entry);
    this.droppedId = Math.max(this.droppedId, dropped);
    return entry;
  }

  /** The kept events with an id above `afterId` (0: all of them), in id order, at most `limit`. */
  since(afterId: number, limit = Infinity): LoggedEvent[] {
    const out: LoggedEvent[] = [];
    let s = this.states.firstAfter(afterId);
    let o = this.others.firstAfter(afterId);
    while (out.length < limit) {
      const state = this.states.at(s);
      const other = this.others.at(o);
      if (!state && !other) break;
      if (state && (!other || state.id < other.id)) {
        out.push(state);
        s++;
      } else {
        out.push(other!);
        o++;
      }
    }
    return out;
  }

  /** How many state-defining events between `afterId` and `upTo` (ids) are kept: what a late client still gets of that span. */
  keptStateEvents(afterId: number, upTo: number): number {
    let count = 0;
    for (let i = this.states.firstAfter(afterId); this.states.at(i) && this.states.at(i)!.id <= upTo; i++) count++;
    return count;
  }
}
