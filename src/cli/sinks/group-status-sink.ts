/**
 * The status API of a `watch` that heads a group of nodes, as one of its outputs: the API is node
 * 0's session (its own events), and the verdicts the group says: its own, and a node's that
 * failed after the group was READY (watch-group.ts), which turns /readyz 503 and names that node.
 * (`run`'s head feeds the API its own session's events directly: group-head.ts.)
 */
import type { LiveStatus } from '../live-status.js';
import type { Sink } from './sink.js';

export function groupStatusSink(status: LiveStatus): Sink {
  return {
    name: status.name,
    groupEvents: (events) => status.events(events.flatMap((e) => (e.type === 'node' && e.node === 0 && e.event.type !== 'verdict' ? [e.event] : []))),
    verdict: (report) => status.verdict(report),
    close: (end) => status.close(end),
  };
}
