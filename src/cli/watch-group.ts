/** `spinup watch FILE FILE...`, `--node R=SOURCE`, `--srun`: the nodes of one start, one verdict. */
import { statSync } from 'node:fs';
import { formatDuration } from '../core/duration.js';
import { EXIT } from '../core/exit-codes.js';
import { watchGroup, type NodeSource } from '../io/group-watch.js';
import { Session } from '../core/session.js';
import { InputError, UsageError } from './errors.js';
import { exitCodeFor } from './exit-for-verdict.js';
import { planNodes, parseSource } from './group-nodes.js';
import { useColor, type Io } from './io-context.js';
import { durationOption, packsOption } from './options.js';
import { announceLiveStatus, LiveStatus } from './live-status.js';
import { allSinks, type Sinks } from './sinks/all-sinks.js';
import { GroupSink } from './sinks/group-sink.js';
import { groupStatusSink } from './sinks/group-status-sink.js';
import { notifySink } from './sinks/notify-option.js';
import { headToken } from './run/group-options.js';
import { pushIntake } from './push-intake.js';
import { groupStatus } from '../status/group-status.js';
import { namedVerdict } from '../core/group-verdicts.js';
import { DEFAULT_JOIN_BUDGET_MS } from '../core/group-reducer.js';
import type { GroupWatchResult } from '../io/group-watch.js';
import type { GroupVerdict } from '../core/group-types.js';
import type { GroupWatchArgs } from './watch-group-args.js';

export async function watchGroupCommand(args: GroupWatchArgs, io: Io): Promise<number> {
  const stallOverrideMs = durationOption('stall', args.stall);
  const timeoutMs = durationOption('timeout', args.timeout);
  const joinBudgetMs = durationOption('join-budget', args.joinBudget);
  if (joinBudgetMs !== undefined && !args.listen) throw new UsageError('--join-budget is for a head that takes pushed nodes (--listen)');
  const { packs, family } = await packsOption(args.pack);
  let srun: NodeSource | undefined;
  let plan;
  if (args.srun) {
    if (args.positionals.length !== 1 || args.nodeOptions.length > 0) throw new UsageError('--srun reads one SOURCE (a FILE, - or cmd:COMMAND) holding every node, labelled by srun --label');
    srun = parseSource(args.positionals[0]!, io.cwd);
    plan = planNodes({ positionals: [], nodeOptions: [], groupSize: args.groupSize, env: io.env, cwd: io.cwd });
  } else {
    if (args.positionals.length === 0 && args.nodeOptions.length === 0) throw new UsageError('name the nodes: FILE FILE..., or --node RANK=SOURCE');
    plan = planNodes({ positionals: args.positionals, nodeOptions: args.nodeOptions, groupSize: args.groupSize, env: io.env, cwd: io.cwd });
  }
  const sources = [...plan.nodes.map((n) => ({ source: n.source, shown: n.shown })), ...(srun ? [{ source: srun, shown: args.positionals[0]! }] : [])];
  if (args.fromEnd && (!args.follow || sources.some((s) => s.source.kind !== 'file'))) throw new UsageError('--from-end only applies when following FILEs');
  if (!args.follow) for (const { source, shown } of sources) if (source.kind === 'file') checkReadable(source.path, shown);

  const mode = args.json ? 'json' : args.quiet ? 'quiet' : 'lines';
  const groupLines = new GroupSink({ io, mode, color: useColor(io, 'stdout'), role: 'watch' });
  for (const note of plan.rankNotes) groupLines.notice({ type: 'rank', detail: note });
  const newSession = (): Session => new Session({ packs, family, classifier: { stallOverrideMs } });
  // A head for pushed nodes: its status API speaks for the group, through node 0's session.
  const headSession = args.listen ? newSession() : undefined;
  const token = args.listen ? headToken(args.listen, args.groupToken, io.env) : undefined;
  if (args.listen && !args.follow) throw new UsageError('--listen with a group follows its logs (pushed nodes come live): drop --no-follow');
  const status = args.listen && headSession ? await LiveStatus.start({ io, command: 'watch', session: headSession, listen: args.listen, state: !args.noState }) : undefined;
  const notify = await notifySink(args.notify, { session: headSession ?? newSession(), stderr: io.stderr });
  const sinks = allSinks([groupLines, status ? groupStatusSink(status) : undefined, notify], { stderr: io.stderr });
  const local = new Set(plan.nodes.map((n) => n.node));
  let result: GroupWatchResult | undefined;
  // A head serving probes is not done at READY (serve-after-ready.ts): it says READY when it comes.
  let readySaid = false;
  let failedAfterReady = false;
  try {
    if (status) announceLiveStatus(io, status);
    result = await watchGroup({
      nodes: plan.nodes,
      srun,
      follow: args.follow,
      fromEnd: args.fromEnd,
      stdin: io.stdin,
      stdinFd: io.stdinFd,
      sessionFor: (node) => (node === 0 && headSession ? headSession : newSession()),
      group: {
        expected: plan.expected,
        heartbeatIntervalMs: durationOption('heartbeat', args.heartbeat) ?? (status ? 5_000 : undefined),
        // Pushed nodes are seen only when they push: a head waits for them within a budget.
        joinBudgetMs: status ? joinBudgetMs ?? DEFAULT_JOIN_BUDGET_MS : undefined,
      },
      timeoutMs,
      signal: io.signal,
      onEvents: (events) => {
        sinks.groupEvents(events);
        // A node's failure after READY is a verdict of its own, to every output (the status API, --notify).
        for (const event of events) {
          if (event.type !== 'after-ready-failure') continue;
          failedAfterReady = true;
          sinks.verdict({ verdict: { ...event.verdict, stage: 'ready', reason: `node ${event.node} failed after the group was READY: ${event.verdict.reason}` }, node: event.node });
        }
      },
      ...(status
        ? {
            onReady: (verdict: GroupVerdict) => {
              readySaid = true;
              sinks.verdict({ verdict: namedVerdict(verdict), group: verdict });
              sinks.notice({ type: 'serving', detail: 'READY: still following the logs, taking the followers\' pushes and serving the status API until SIGTERM or SIGINT' });
            },
          }
        : {}),
      onNotice: (node, notice) => sinks.notice(notice, node),
      env: io.env,
      cwd: io.cwd,
      ...(status
        ? {
            acceptRemote: (take) =>
              status.server.acceptPushes(pushIntake({ token, local: (node) => local.has(node), take, note: (text) => sinks.notice({ type: 'push', detail: text }) })),
            onStanding: (standing, verdict) => status.model.group(groupStatus(standing, verdict)),
          }
        : {}),
    });
    return endOfGroup(result, { sinks, readySaid, failedAfterReady, timeoutMs });
  } finally {
    // What is still in flight (a webhook, the state file's last word) is finished before the exit.
    await sinks.close({ exitCode: result?.verdict ? exitCodeFor(result.verdict.verdict) : undefined });
  }
}

/** How the group watch ended, said to every output, and its exit code. */
function endOfGroup(result: GroupWatchResult, { sinks, readySaid, failedAfterReady, timeoutMs }: { sinks: Sinks; readySaid: boolean; failedAfterReady: boolean; timeoutMs: number | undefined }): number {
  if (result.end === 'interrupted') {
    sinks.message('interrupted before the group had a verdict');
    return EXIT.interrupted;
  }
  if (result.end === 'timeout') {
    sinks.message(`timed out after ${formatDuration(timeoutMs ?? 0)} with no group verdict`);
    return EXIT.stalled;
  }
  if (result.truncatedBytes > 0) sinks.message(`note: ${result.truncatedBytes} bytes of over-long lines were cut (lines are capped at 64 KiB)`);
  if (readySaid) {
    sinks.message(`spinup: stopped: the group was READY${failedAfterReady ? '; a node failed after it' : ' and still is'}`);
    return failedAfterReady ? EXIT.failed : EXIT.ok;
  }
  sinks.verdict({ verdict: namedVerdict(result.verdict!), group: result.verdict! });
  return exitCodeFor(result.verdict!.verdict);
}

function checkReadable(path: string, shown: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`${shown}: ${code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`, { cause: error });
  }
  if (!stats.isFile() && !stats.isFIFO()) throw new InputError(`${shown}: is not a log file`);
}
