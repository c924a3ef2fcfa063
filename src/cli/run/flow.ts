/**
 * The life of `spinup run` once the server started: the startup verdict, then either `--then`, or staying
 * attached until a crash or Ctrl-C; and always, at the end, the process group stopped (or left, when asked).
 */
import { EXIT } from '../../core/exit-codes.js';
import { DEFAULT_JOIN_BUDGET_MS } from '../../core/group-reducer.js';
import { formatDuration } from '../../core/duration.js';
import type { Verdict } from '../../core/events.js';
import type { Session } from '../../core/session.js';
import type { Child, StopReport } from '../../io/child-process.js';
import { describeExit } from '../../io/supervise/exit.js';
import type { Decision } from '../../io/supervise/decision.js';
import { Supervisor } from '../../io/supervise/supervisor.js';
import type { ActivityOptions } from '../../io/supervise/activity-watch.js';
import { groupAlive } from '../../io/supervise/stop.js';
import { startLogDrainer } from '../../io/supervise/log-drainer.js';
import { exitCodeFor } from '../exit-for-verdict.js';
import type { StartMemory } from '../history-flags.js';
import { useColor, type Io } from '../io-context.js';
import type { RunLog } from './log-file.js';
import type { RunOptions } from './options.js';
import { healthNote } from './run-sink.js';
import type { RunFacts } from '../sinks/sink.js';
import type { Sinks } from '../sinks/all-sinks.js';
import { standing } from '../reporters/standing.js';
import pc from 'picocolors';
import { runThen } from './then.js';
import { modelFromCommand } from './model.js';
import { checkpointBytes } from '../../io/checkpoint-size.js';
import { trackerOf } from '../../history/start-tracker.js';
import type { GroupHead } from './group-head.js';

/** After a FAILED verdict from the log, how long the server may take to exit by itself before SIGTERM. */
const LAST_WORDS_MS = 1_000;

export interface RunContext {
  io: Io;
  options: RunOptions;
  child: Child;
  session: Session;
  /** The start history: the run's verdict is recorded once it is decided. */
  memory: StartMemory;
  log: RunLog;
  /** Every output of the run: the terminal's, the status API, the group's, --notify. */
  sinks: Sinks;
  /** Called when the server is deliberately left running (--keep-on-fail). */
  onRelease: () => void;
  /** The head of a multi-node start: the run's verdict is the group's. */
  group?: GroupHead;
  /** A follower: resolves with its READY when its head says the group is READY. */
  groupReady?: Promise<Verdict>;
  /** A follower the head refused (its rank out of range or taken by another follower): a usage error. */
  groupRefused?: Promise<string>;
}

export async function superviseRun(ctx: RunContext): Promise<number> {
  const { io, options, child, log, sinks } = ctx;
  // The server's lines go to the outputs (stdout's echo, run-outputs.ts) until --then's own output takes over.
  let echo = true;
  let logBroken = false;
  // Set when the run is over; a server left running (--keep-on-fail) may still write.
  let over = false;
  const facts: RunFacts = { pid: child.pid, startedAt: child.startedAt, log: log.shown, healthUrl: options.health };
  const supervisor = new Supervisor({
    child,
    session: ctx.session,
    onOutput: (bytes) => {
      if (over) return;
      if (!logBroken) {
        try {
          log.write(bytes);
        } catch (error) {
          logBroken = true;
          sinks.note({ text: `cannot write ${log.shown} (${(error as Error).message}); the server's output is no longer logged`, json: { type: 'log_error', log: log.shown, error: (error as Error).message }, important: true });
        }
      }
      // Never awaited: a reader that stopped reading must not stop us reading the server.
      if (echo) sinks.output(bytes);
    },
    onEvents: (events, readyDeclared) => sinks.events(events, readyDeclared),
    onExit: (exit) => sinks.note({ text: `the server (pid ${child.pid}) ${describeExit(exit)}`, json: { type: 'exit', pid: child.pid, code: exit.code, signal: exit.signal, wall_ms: exit.at } }),
    onHealth: (result, changed) => {
      if (changed && options.health) sinks.note(healthNote(result, options.health));
    },
    health: options.health ? { url: options.health, waitMs: options.healthWaitMs } : undefined,
    timeoutMs: options.timeoutMs,
    activity: activityOptions(ctx),
    signal: io.signal,
  });
  void ctx.groupReady?.then((verdict) => supervisor.groupReady(verdict));
  const flow = new Flow(ctx, supervisor);
  try {
    const { group } = ctx;
    const refused = ctx.groupRefused?.then(() => ({ kind: 'refused' as const }));
    const startup = await Promise.race([
      group ? group.startup(supervisor.startup(), { signal: io.signal, afterReady: () => supervisor.attached() }) : supervisor.startup(),
      ...(refused ? [refused] : []),
    ]);
    if (startup.kind === 'refused') return await flow.refused();
    if (startup.kind === 'interrupted') return await flow.interrupted(true);
    // A head's verdict is the group's, said by the group (group-head.ts).
    if (!group) sinks.verdict({ verdict: startup.decision.verdict, run: { decision: startup.decision, facts } });
    const unrecorded = ctx.memory.record(startup.decision.verdict, log.path);
    if (unrecorded) sinks.note({ text: `history: ${unrecorded}`, json: { type: 'history', detail: unrecorded } });
    if (startup.decision.verdict.verdict !== 'ready') return await flow.failed(startup.decision);
    if (options.then !== undefined) {
      echo = false;
      return await flow.then(options.then);
    }
    sinks.note({ text: `attached: streaming the server's output to ${log.shown}; a crash ends the run (exit 1), Ctrl-C stops the server`, json: { type: 'attached', log: log.shown } });
    const after = group ? await Promise.race([supervisor.attached(), group.afterReady]) : await supervisor.attached();
    if (after.kind === 'interrupted') return await flow.interrupted(false);
    // A follower's failure is the follower's: the group's block names it, with none of our server's facts.
    if (after.kind === 'follower') group!.reportFollowerFailure(after);
    else sinks.verdict({ verdict: after.decision.verdict, run: { decision: after.decision, facts } });
    return await flow.failed(after.decision);
  } finally {
    over = true;
    supervisor.close();
    log.close();
  }
}

class Flow {
  constructor(
    private readonly ctx: RunContext,
    private readonly supervisor: Supervisor,
  ) {}

  private get sinks(): Sinks {
    return this.ctx.sinks;
  }

  async failed(decision: Decision): Promise<number> {
    const code = exitCodeFor(decision.verdict.verdict === 'ready' ? 'failed' : decision.verdict.verdict);
    const { child, options } = this.ctx;
    if (options.keepOnFail && groupAlive(child)) {
      const { pgid } = child;
      const pids = child.groupMembers();
      const { log } = this.ctx;
      // Its pipes go to a drainer of their own: closed with us, the server's next print would kill it (EPIPE).
      const drainer = await this.supervisor.handOver((pipes) => startLogDrainer({ ...pipes, logFd: log.descriptor() }));
      const output = drainer === undefined ? 'its output is no longer logged' : `its output goes on to ${log.shown} (drained by pid ${drainer}, which ends with the server)`;
      const text = `--keep-on-fail: the server is left running (process group ${pgid}, pids ${pids.join(' ')}); ${output}. Stop it with: kill -TERM -- -${pgid}`;
      this.sinks.note({ text, json: { type: 'left_running', pgid, pids, drainer_pid: drainer, log: log.shown }, important: true });
      this.ctx.onRelease();
      return code;
    }
    // A server that logged a fatal error is usually on its way out: let its last words (other ranks' tracebacks)
    // reach the log before SIGTERM cuts them off.
    if (decision.by === 'log' && decision.verdict.verdict === 'failed') await this.supervisor.waitForExit(LAST_WORDS_MS);
    await this.stop();
    return code;
  }

  async then(command: string): Promise<number> {
    const { io, options, child, log } = this.ctx;
    this.supervisor.passive();
    this.sinks.note({ text: `running --then: ${command} (the server's output goes on to ${log.shown} only)`, json: { type: 'then_start', command } });
    const env = { ...io.env, SPINUP_LOG: log.path, SPINUP_SERVER_PID: String(child.pid) };
    const result = await runThen({ command, env, cwd: io.cwd, stdoutToStderr: options.json, graceMs: options.graceMs, signal: io.signal });
    const how = result.signal ? `was killed by ${result.signal} (exit ${result.code})` : `exited with code ${result.code}`;
    this.sinks.note({ text: `--then ${how}`, json: { type: 'then_exit', command, code: result.code, signal: result.signal }, important: true });
    if (result.interrupted) return this.interrupted(false);
    await this.stop();
    return result.code;
  }

  /** The group's head refused this follower's rank: a usage error; the server goes, as a misplaced node. */
  async refused(): Promise<number> {
    await this.stop();
    return EXIT.usage;
  }

  async interrupted(beforeVerdict: boolean): Promise<number> {
    const { child, options, io, session } = this.ctx;
    if (beforeVerdict) this.sinks.message(`interrupted: ${standing(session, pc.createColors(useColor(io, 'stderr')))}`);
    if (groupAlive(child)) {
      const grace = formatDuration(options.graceMs);
      this.sinks.note({ text: `interrupted: SIGINT to the server (process group ${child.pgid}); waiting up to ${grace} for it to exit`, json: { type: 'stopping', signal: 'SIGINT', pgid: child.pgid, grace_ms: options.graceMs }, important: true });
      const { report, exitedOnSigint } = await this.supervisor.interrupt(options.graceMs);
      const how = exitedOnSigint ? 'the server exited on SIGINT' : report.escalated ? 'the server was killed (SIGKILL)' : 'the server stopped on SIGTERM';
      // What the server printed on its way out (a KeyboardInterrupt traceback) was its answer to the user, not a crash.
      this.stopped(`stopped by the user (Ctrl-C): ${how}`, report, true, { by_user: true });
    } else {
      await this.supervisor.stop(0);
    }
    return EXIT.interrupted;
  }

  private async stop(): Promise<void> {
    const { child, options } = this.ctx;
    if (!groupAlive(child)) {
      await this.supervisor.stop(0);
      return;
    }
    const grace = formatDuration(options.graceMs);
    const members = child.groupMembers();
    const outsiders = child.outsiders();
    const also = outsiders.length > 0 ? ` and to ${outsiders.length} that left it (${namePids(outsiders)})` : '';
    this.sinks.note({ text: `stopping the server: SIGTERM to process group ${child.pgid} (pids ${members.join(' ')})${also}, SIGKILL after ${grace}`, json: { type: 'stopping', signal: 'SIGTERM', pgid: child.pgid, pids: members, outside_group: outsiders.map(({ pid, comm }) => ({ pid, command: comm })), grace_ms: options.graceMs } });
    // The processes named above are the ones stopped: found once (a scan of every process's fds).
    const report = await this.supervisor.stop(options.graceMs, outsiders);
    this.stopped(report.escalated ? `SIGTERM was not enough within ${grace}: killed with SIGKILL` : 'the server stopped on SIGTERM', report, report.escalated);
  }

  private stopped(how: string, report: StopReport, important: boolean, extra: Record<string, unknown> = {}): void {
    const outside = report.outsiders.length > 0 ? `, with ${report.outsiders.length} of its processes outside its group (${namePids(report.outsiders)})` : '';
    const survivors = report.survivors.map((pid) => ({ pid, comm: report.commands[pid] ?? '?' }));
    const left = survivors.length > 0 ? `; would not stop, still alive after SIGKILL (uninterruptible sleep, or not ours to kill): ${namePids(survivors)}` : '';
    const outsideGroup = report.outsiders.map(({ pid, comm }) => ({ pid, command: comm }));
    this.sinks.note({ text: `${how}${outside}${left}`, json: { type: 'stopped', escalated: report.escalated, survivors: report.survivors, outside_group: outsideGroup, ...extra }, important: important || left !== '' });
  }
}

/** What the supervisor needs to judge a silent log by the server's processes, and where it tells what it sees. */
function activityOptions({ child, options, session, io, sinks, group, groupReady }: RunContext): ActivityOptions {
  return {
    tree: child.tree,
    limits: options.silence,
    // A node of a multi-node start waits for the others in distributed_init as long as the head lets a node join.
    peerWaitMs: group ? group.joinBudgetMs : groupReady ? DEFAULT_JOIN_BUDGET_MS : undefined,
    checkpointBytes: () => checkpointBytes(trackerOf(session)?.startFacts.model ?? modelFromCommand(options.args), io.env),
    onProgress: (progress, final) => {
      trackerOf(session)?.noteLoad(progress);
      sinks.loadProgress(progress, final);
    },
    onUnreadable: (processes) => sinks.note({ text: unreadableText(processes), json: { type: 'activity_unreadable', pids: processes.map(({ pid }) => pid) } }),
  };
}

/** Said once when the server's processes cannot be seen whole: the log alone judges a silence then. */
function unreadableText(processes: Array<{ pid: number; comm: string }>): string {
  if (processes.length === 0) return 'no /proc on this host: a silent log is judged by the log alone (--idle and --spin need Linux)';
  return `cannot read what ${namePids(processes)} do (not ours); a silent log is judged by the log alone`;
}

/** `812 (ray::Worker), 813 (sleep)`: pids a person can look up, with what they run. */
function namePids(processes: Array<{ pid: number; comm: string }>): string {
  return processes.map(({ pid, comm }) => `${pid} (${comm})`).join(', ');
}
