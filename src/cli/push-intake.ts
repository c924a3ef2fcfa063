/** The head's side of a follower's push, shared by the head of `run` and of `watch`. */
import { sessionEventFromJson } from '../core/remote-events.js';
import type { SessionEvent } from '../core/session.js';
import type { NodePushReceiver } from '../serve/node-push.js';

/**
 * How a head takes its followers' pushes (the head of `run` and of `watch`): a follower's JSON
 * lines become session events for the group, once; a wrong token is said once, not per push.
 */
export function pushIntake(options: {
  token?: string;
  /** Nodes the head reads itself: a push for one of them is refused. */
  local: (node: number) => boolean;
  /** Events in (none: a heartbeat); the group's verdict so far out. */
  take: (node: number, events: SessionEvent[]) => string;
  note: (text: string) => void;
}): NodePushReceiver {
  let unauthorizedSaid = false;
  return {
    token: options.token,
    receive(node, lines) {
      if (options.local(node)) return { refused: `node ${node} is read by the head itself; followers push with their own --node-rank` };
      return { group: options.take(node, lines.flatMap((line) => sessionEventFromJson(line) ?? [])) };
    },
    onUnauthorized(node) {
      if (unauthorizedSaid) return;
      unauthorizedSaid = true;
      options.note(`refused a push for node ${node} (401): its token is missing or wrong; give every node the same --group-token or SPINUP_GROUP_TOKEN (said once)`);
    },
  };
}
