/**
 * Every output of one `spinup run`, built in one place: what it prints (run-sink.ts), its echo of
 * the server's lines (stdout-echo.ts), the status API, --notify, and for a group the head's lines
 * (group-sink.ts) or a follower's push. The head takes the run's session events before any output
 * does, and says the group's words to them all.
 */
import type { Verdict } from '../../core/events.js';
import type { Session } from '../../core/session.js';
import { systemClock } from '../../io/wall-clock.js';
import { useColor, type Io } from '../io-context.js';
import type { LiveStatus } from '../live-status.js';
import { allSinks, type Sinks } from '../sinks/all-sinks.js';
import type { Sink } from '../sinks/sink.js';
import { GroupSink } from '../sinks/group-sink.js';
import { GroupHead } from './group-head.js';
import type { GroupRole } from './group-options.js';
import { groupFollower } from './group.js';
import type { RunOptions } from './options.js';
import { RunSink } from './run-sink.js';
import { ECHO_LIMIT_BYTES, StdoutEcho } from './stdout-echo.js';

export interface RunOutputs {
  sinks: Sinks;
  /** The server started: at this wall time (what the run's text times count from), logging to this file. */
  launched: (launch: { at: number; logShown: string }) => void;
  head?: GroupHead;
  /** A follower: resolves with its READY when its head says the group is READY. */
  groupReady?: Promise<Verdict>;
  /** A follower the head refused (its rank out of range or taken): the head's reason. */
  groupRefused?: Promise<string>;
}

export function runOutputs({ role, io, options, session, status, notify }: { role: GroupRole; io: Io; options: RunOptions; session: Session; status: LiveStatus; notify?: Sink }): RunOutputs {
  const mode = options.json ? 'json' : options.quiet ? 'quiet' : 'lines';
  const color = useColor(io, 'stderr');
  let launchedAt = systemClock.now();
  let logShown = '';
  const follower = role.role === 'follower' ? groupFollower(role, { io, session }) : undefined;
  const outputs = allSinks(
    [
      status,
      role.role === 'head' ? new GroupSink({ io, mode, color, role: 'head', session }) : undefined,
      follower?.sink,
      new RunSink(io, mode, color, session, () => launchedAt),
      // The server's own lines on stdout, unless stdout is spinup's (--json) or quiet.
      mode === 'lines' ? new StdoutEcho(io.stdout, { limitBytes: ECHO_LIMIT_BYTES, logShown: () => logShown }) : undefined,
      notify,
    ],
    { stderr: io.stderr },
  );
  const launched = (launch: { at: number; logShown: string }): void => {
    launchedAt = launch.at;
    logShown = launch.logShown;
  };
  if (role.role !== 'head') return { sinks: outputs, launched, groupReady: follower?.groupReady, groupRefused: follower?.groupRefused };
  const head = new GroupHead({ outputs, status, expected: role.expected, heartbeatMs: role.heartbeatMs, token: role.token, joinBudgetMs: role.joinBudgetMs, timeoutMs: options.timeoutMs });
  return { sinks: allSinks([head, outputs], { stderr: io.stderr }), launched, head };
}
