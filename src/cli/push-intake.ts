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
  /** Events in (none: a heartbeat); the group's verdict so far out, or why the node may not join. */
  take: (node: number, events: SessionEvent[]) => string | { refused: string };
  note: (text: string) => void;
}): NodePushReceiver {
  let unauthorizedSaid = false;
  /** Which follower holds each rank: the first to push for it (a spinup names itself in every push). */
  const holders = new Map<number, string>();
  const refusalsSaid = new Set<string>();
  const refuse = (text: string): { refused: string } => {
    if (!refusalsSaid.has(text)) options.note(`refused a push (409): ${text}`);
    refusalsSaid.add(text);
    return { refused: text };
  };
  return {
    token: options.token,
    receive(node, lines, follower) {
      if (options.local(node)) return refuse(`node ${node} is read by the head itself; followers push with their own --node-rank`);
      const holder = holders.get(node);
      if (follower !== undefined && holder !== undefined && holder !== follower) {
        return refuse(`node ${node} is already taken by another follower (${holder}); this one (${follower}) has the same --node-rank: give each follower its own rank`);
      }
      const answer = options.take(node, lines.flatMap((line) => sessionEventFromJson(line) ?? []));
      if (typeof answer !== 'string') return refuse(answer.refused);
      if (follower !== undefined && holder === undefined) holders.set(node, follower);
      return { group: answer };
    },
    onUnauthorized(node) {
      if (unauthorizedSaid) return;
      unauthorizedSaid = true;
      options.note(`refused a push for node ${node} (401): its token is missing or wrong; give every node the same --group-token or SPINUP_GROUP_TOKEN (said once)`);
    },
  };
}
