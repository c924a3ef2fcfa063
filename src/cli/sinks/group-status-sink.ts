/**
 * The status API of a `watch` that heads a group of nodes, as one of its outputs: the API is node
 * 0's session (its own events), and a node that fails after the group was READY turns /readyz
 * 503 with the status naming that node. (`run`'s head feeds the API its own session's events
 * directly and reports a follower's failure as a verdict: group-head.ts.)
 */
import type { LiveStatus } from '../live-status.js';
import type { Sink } from './sink.js';

export function groupStatusSink(status: LiveStatus): Sink {
  return {
    name: status.name,
    groupEvents: (events) => {
      status.events(events.flatMap((e) => (e.type === 'node' && e.node === 0 && e.event.type !== 'verdict' ? [e.event] : [])));
      for (const event of events) {
        if (event.type !== 'after-ready-failure') continue;
        status.verdict({ verdict: { ...event.verdict, stage: 'ready', reason: `node ${event.node} failed after the group was READY: ${event.verdict.reason}` }, node: event.node });
      }
    },
    verdict: (report) => status.verdict(report),
    close: (end) => status.close(end),
  };
}
