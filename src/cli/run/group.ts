/**
 * What a `run` adds when it is one node of a multi-node start across machines: the head judges
 * the group (group-head.ts); a follower pushes to the head and takes its READY from it.
 */
import type { Verdict } from '../../core/events.js';
import { groupReadyVerdict } from '../../core/group-verdicts.js';
import type { Session } from '../../core/session.js';
import { GroupPusher } from '../../serve/group-pusher.js';
import { eventJson } from '../format/verdict-json.js';
import { GroupHead } from './group-head.js';
import type { GroupRole } from './group-options.js';
import { useColor, write, type Io } from '../io-context.js';
import type { EventSink, LiveStatus } from '../live-status.js';
import type { RunOptions } from './options.js';

/** How long a follower's verdict may take to reach the head before `run` exits anyway. */
export const PUSH_LAST_WORDS_MS = 2_000;

export interface GroupParts {
  head?: GroupHead;
  pusher?: GroupPusher;
  groupReady?: Promise<Verdict>;
  /** A follower the head refused (409: its rank out of range or taken): the head's reason. */
  groupRefused?: Promise<string>;
}

export function groupParts(role: GroupRole, { io, options, session, status }: { io: Io; options: RunOptions; session: Session; status: LiveStatus }): GroupParts {
  if (role.role === 'single') return {};
  const mode = options.json ? 'json' : options.quiet ? 'quiet' : 'lines';
  if (role.role === 'head') {
    return { head: new GroupHead({ io, mode, color: useColor(io, 'stderr'), session, status, expected: role.expected, heartbeatMs: role.heartbeatMs, token: role.token, joinBudgetMs: role.joinBudgetMs, timeoutMs: options.timeoutMs }) };
  }
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
  return { pusher, groupReady, groupRefused };
}

/** The status API, and for a group the head or the push to it: every one sees every event. */
export function teeSinks(sinks: (EventSink | undefined)[]): EventSink {
  const all = sinks.filter((s): s is EventSink => s !== undefined);
  return {
    events: (events) => all.forEach((s) => s.events(events)),
    verdict: (verdict) => all.forEach((s) => s.verdict(verdict)),
    loadProgress: (progress) => all.forEach((s) => s.loadProgress?.(progress)),
  };
}
