/**
 * What a `run` adds when it is a follower of a multi-node start across machines: it pushes its
 * events and verdict to the head (one more output) and takes its READY from the head's answer.
 * The head's side is group-head.ts.
 */
import type { Verdict } from '../../core/events.js';
import { groupReadyVerdict } from '../../core/group-verdicts.js';
import type { Session } from '../../core/session.js';
import { GroupPusher } from '../../serve/group-pusher.js';
import { eventJson } from '../format/verdict-json.js';
import type { GroupRole } from './group-options.js';
import { write, type Io } from '../io-context.js';
import type { Sink } from '../sinks/sink.js';

/** How long a follower's verdict may take to reach the head before `run` exits anyway. */
export const PUSH_LAST_WORDS_MS = 2_000;

export interface Follower {
  /** The push to the head, as one of the run's outputs. */
  sink: Sink;
  /** Resolves with its READY when the head says the group is READY. */
  groupReady: Promise<Verdict>;
  /** The head refused this follower (409: its rank out of range or taken): the head's reason. */
  groupRefused: Promise<string>;
}

export function groupFollower(role: Extract<GroupRole, { role: 'follower' }>, { io, session }: { io: Io; session: Session }): Follower {
  let ready: (verdict: Verdict) => void = () => {};
  const groupReady = new Promise<Verdict>((resolve) => (ready = resolve));
  let refuse: (text: string) => void = () => {};
  const groupRefused = new Promise<string>((resolve) => (refuse = resolve));
  const pusher = new GroupPusher({
    leader: role.leader,
    node: role.node,
    token: role.token,
    heartbeatMs: role.heartbeatMs,
    toJson: eventJson,
    onProblem: (text) => write(io.stderr, `spinup: ${text}\n`),
    onRefused: (text) => {
      write(io.stderr, `spinup: the group leader ${role.leader} refused node ${role.node} (409): ${text}\n`);
      refuse(text);
    },
    onGroup: (verdict) => {
      if (verdict !== 'ready') return;
      const state = session.classifier?.state;
      ready(groupReadyVerdict({ node: role.node, stage: state?.stage ?? 'none', at: session.now, elapsedMs: Math.max(0, session.now - (state?.startedAt ?? session.now)) }));
    },
  });
  pusher.start();
  return { sink: pusherSink(pusher), groupReady, groupRefused };
}

/** Every session event and the follower's own verdicts go to the head; closing waits a while for the last of them. */
function pusherSink(pusher: GroupPusher): Sink {
  return {
    name: 'the push to the group leader',
    events: (events) => pusher.events(events),
    verdict: (report) => !report.group && pusher.verdict(report.verdict),
    // Its last words (its verdict) reach the head if it can be reached soon; its exit code is its own.
    close: () => pusher.close(PUSH_LAST_WORDS_MS),
  };
}
