/**
 * The status API (HTTP, the unix socket, the state file) as one more live reporter beside the
 * terminal's: it takes every session event. `watch`'s verdict is one of them; `run` hands the
 * verdict it decided (the log, the process or the probe) to the sink itself.
 */
import type { SessionEvent } from '../../core/session.js';
import type { EventSink } from '../live-status.js';
import { SilentReporter } from './live-reporter.js';

export class StatusApiReporter extends SilentReporter {
  constructor(private readonly sink: EventSink) {
    super();
  }

  override events(events: SessionEvent[]): void {
    this.sink.events(events);
  }
}
