/** A group's events and verdict as the JSON objects `watch --json` and `run --json` print, one per line. */
import type { GroupEvent, GroupVerdict } from '../../core/group-types.js';
import { namedVerdict } from '../../core/group-verdicts.js';
import { eventJson, verdictJson } from './verdict-json.js';

/**
 * One JSON object per group event. A node's events keep their own shape plus `node` (its own
 * verdict too: `verdict` with `node`, one lane per node for the report); the group's answer is
 * the last line, `group_verdict`.
 */
export function groupEventJson(event: GroupEvent): Record<string, unknown> {
  switch (event.type) {
    case 'node': {
      const { type, ...rest } = eventJson(event.event);
      return { type, node: event.node, group_at_ms: event.at, ...rest };
    }
    case 'joined':
      return { type: 'node_joined', node: event.node, group_at_ms: event.at };
    case 'size':
      return { type: 'group_size', expected: event.expected, from: event.from, group_at_ms: event.at };
    case 'waiting':
      return { type: 'waiting', missing: event.missing, group_at_ms: event.at };
    case 'node-lost':
      return { type: 'node_lost', node: event.node, group_at_ms: event.at, ...verdictJson(event.verdict) };
    case 'after-ready-failure':
      return { type: 'after_ready_failure', node: event.node, group_at_ms: event.at, ...verdictJson(event.verdict) };
    case 'group-verdict':
      return groupVerdictJson(event.verdict);
  }
}

export function groupVerdictJson(group: GroupVerdict): Record<string, unknown> {
  return {
    type: 'group_verdict',
    node: group.node,
    ...verdictJson(namedVerdict(group)),
    group: {
      size: group.nodes.length,
      expected: group.expected,
      expected_from: group.expectedFrom,
      head: group.head,
      elapsed_ms: group.elapsedMs,
      stalled_node: group.stalledNode,
      nodes: group.nodes,
      set_aside: group.setAside.map((s) => ({ node: s.node, ...verdictJson(s.verdict) })),
    },
  };
}
