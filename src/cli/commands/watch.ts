/** `spinup watch [FILE|-]`: classify a server log, live or after the fact. */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT } from '../../core/exit-codes.js';
import { formatDuration } from '../../core/duration.js';
import type { Verdict } from '../../core/events.js';
import { GzipError } from '../../io/decode-input.js';
import { openSource } from '../../io/open-source.js';
import { EARLIER_VERDICT_WAIT_MS, runWatchLoop, type LoopResult } from '../../io/watch-loop.js';
import { InputError, UsageError } from '../errors.js';
import { liveReporter, reportFormat } from '../reporters/choose-reporter.js';
import { noticeText } from '../reporters/event-lines.js';
import { standing } from '../reporters/standing.js';
import { allSinks, type Sinks } from '../sinks/all-sinks.js';
import { notifyHelp, notifyOption, notifySink } from '../sinks/notify-option.js';
import { useColor, type Io } from '../io-context.js';
import pc from 'picocolors';
import { durationOption, listenHelp, listenOption, packsOption } from '../options.js';
import { announceLiveStatus, LiveStatus } from '../live-status.js';
import { outliveHangup } from '../outlive-hangup.js';
import { exitCodeFor } from '../exit-for-verdict.js';
import { historyFlags, historyFlagsHelp, startMemory, type StartMemory } from '../history-flags.js';
import { systemClock } from '../../io/wall-clock.js';
import { groupOptionsHelp, isGroupWatch } from '../watch-group-args.js';
import { parseOptions } from '../parse-options.js';
import { SERVE_ON_HELP, ServeAfterReady } from '../serve-after-ready.js';
import type { SilenceLimits } from '../../core/activity.js';
import { silenceHelp, silenceLimits, silenceParseOptions } from '../silence-options.js';
import { processTargetOption, watchProcess, type ProcessTarget } from '../watch-process.js';

export const watchHelp = `Usage: spinup watch [options] FILE|-
       spinup watch [options] FILE FILE... | --node R=SOURCE... | --srun SOURCE

Classifies an SGLang or vLLM server log: READY, FAILED with its root cause, or STALLED
at a stage. FILE is followed by name like tail -F (it may not exist yet; rotation and
truncation are survived); '-' reads a pipe, e.g.
  ssh gpu-host tail -F /data/server.log | spinup watch -
  python -m sglang.launch_server ... 2>&1 | spinup watch -
A file that already holds earlier runs is classified by its latest run; if that run
had already ended (READY or FAILED) before watch started, watch gives a new run 30s
to start before it reports that one (--no-follow reports it at once).

Options:
  --pack NAME|FILE    sglang, vllm or a pack file (default: detect from the first lines)
                      (a FILE's include: packs are read beside it, else the shipped ones)
  --no-follow         read FILE (or stdin) to the end on the log's own time, then report
  --from-end          start at the end of FILE instead of its beginning
  --stall DURATION    one stall budget for every stage (default: the pack's per stage)
  --timeout DURATION  give up after this much wall time, in every mode (exit 2)
  --pid PID           the server's process on this host: a silent log is judged by what its
                      processes do, as under 'spinup run' (--idle, --spin; Linux /proc)
  --pid-of PATTERN    the same, for the oldest process whose command line holds PATTERN
                      (a sidecar with shareProcessNamespace: true); waits for it to appear
${silenceHelp}
  --json              one JSON event per line: family, stage, progress, warning, verdict
  --quiet             print only the verdict
${notifyHelp}
${listenHelp}
${historyFlagsHelp}
  -h, --help          show this help

${groupOptionsHelp}

${SERVE_ON_HELP}

A lost terminal (SSH hang-up) does not stop spinup watch, nor does a reader of its stdout
that goes away (| head -1): it goes on to the verdict and exits with its code.

Exit: 0 ready · 1 failed · 2 stalled (or --timeout) · 3 input ended with no verdict
      64 usage · 66 file not found or not a log file (--no-follow), or no process --pid
      69 --listen port in use · 78 invalid pack · 130 interrupted`;

export async function watchCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      pack: { type: 'string' },
      'no-follow': { type: 'boolean' },
      'from-end': { type: 'boolean' },
      stall: { type: 'string' },
      timeout: { type: 'string' },
      pid: { type: 'string' },
      'pid-of': { type: 'string' },
      ...silenceParseOptions,
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      listen: { type: 'string' },
      notify: { type: 'string' },
      'no-state': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      node: { type: 'string', multiple: true },
      srun: { type: 'boolean' },
      'group-size': { type: 'string' },
      'group-token': { type: 'string' },
      heartbeat: { type: 'string' },
      'join-budget': { type: 'string' },
      ...historyFlags,
    },
  });
  if (values.help) {
    io.stdout.write(`${watchHelp}\n`);
    return EXIT.ok;
  }
  const notify = notifyOption(values.notify);
  if (isGroupWatch(positionals, values) && (values.pid !== undefined || values['pid-of'] !== undefined)) {
    throw new UsageError('--pid and --pid-of watch the server of one log, not a group');
  }
  if (isGroupWatch(positionals, values)) {
    // The nodes of one start: loaded only for a group, which a one-log watch never pays for.
    const { watchGroupCommand } = await import('../watch-group.js');
    return watchGroupCommand({
      listen: listenOption(values.listen),
      notify,
      noState: Boolean(values['no-state']),
      groupToken: values['group-token'],
      heartbeat: values.heartbeat,
      joinBudget: values['join-budget'],
      positionals,
      nodeOptions: values.node ?? [],
      srun: Boolean(values.srun),
      groupSize: values['group-size'],
      follow: !values['no-follow'],
      fromEnd: Boolean(values['from-end']),
      pack: values.pack,
      stall: values.stall,
      timeout: values.timeout,
      json: Boolean(values.json),
      quiet: Boolean(values.quiet),
    }, io);
  }
  if (positionals.length !== 1) throw new UsageError('name a log FILE to watch, or - for stdin');
  const target = positionals[0]!;
  const follow = !values['no-follow'];
  const processTarget = processTargetOption(values.pid, values['pid-of']);
  if (processTarget && !follow) throw new UsageError('--pid and --pid-of need a live log: follow FILE or read stdin, without --no-follow');
  const silence = silenceLimits(values);
  if (values['from-end'] && (!follow || target === '-')) throw new UsageError('--from-end only applies when following a FILE');
  const stallOverrideMs = durationOption('stall', values.stall);
  const timeoutMs = durationOption('timeout', values.timeout);
  const listen = listenOption(values.listen);
  const path = target === '-' ? undefined : resolve(io.cwd, target);
  if (path && !follow) checkReadable(path, target);
  const { packs, family } = await packsOption(values.pack, io.env);

  const memory = await startMemory({ io, flags: values, session: { packs, family, classifier: { stallOverrideMs } }, source: 'watch', log: path ?? '-' });
  const session = memory.session;
  const status = await LiveStatus.start({ io, command: 'watch', session, listen, log: path ?? '-', state: !values['no-state'], finishedFile: path !== undefined && !follow });
  const format = reportFormat(values, Boolean(io.stderr.isTTY) && follow);
  const webhook = await notifySink(notify, { session, stderr: io.stderr });
  const sinks = allSinks([liveReporter({ format, io, session, color: useColor(io, 'stdout') }), status, webhook], { stderr: io.stderr });
  let code: number | undefined;
  try {
    announceLiveStatus(io, status);
    code = await watchWith({ io, values, target, path, follow, session, memory, sinks, timeoutMs, listening: listen !== undefined, process: processTarget ? { target: processTarget, silence } : undefined });
    return code;
  } finally {
    // What is still in flight (a webhook, the state file's last word) is finished before the exit.
    await sinks.close({ exitCode: code });
  }
}

interface WatchContext {
  io: Io;
  values: { 'from-end'?: boolean };
  target: string;
  path: string | undefined;
  follow: boolean;
  session: StartMemory['session'];
  memory: StartMemory;
  sinks: Sinks;
  timeoutMs: number | undefined;
  /** --listen: a READY start is served on until the server's end (serve-after-ready.ts). */
  listening: boolean;
  /** --pid / --pid-of: the server's processes, judged beside the log. */
  process?: { target: ProcessTarget; silence: SilenceLimits };
}

async function watchWith({ io, values, target, path, follow, session, memory, sinks, timeoutMs, listening, process: watched }: WatchContext): Promise<number> {
  const live = follow || target === '-';
  const stopAtVerdict = live && !(target === '-' && !follow);
  const serveOn = listening && stopAtVerdict ? new ServeAfterReady({ sinks, record: (verdict) => recordVerdict(memory, sinks, verdict), piped: path === undefined }) : undefined;
  // Stops the follower when the loop ends for any reason, not only on Ctrl-C.
  const stop = new AbortController();
  io.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const processWatch = watched ? watchProcess({ ...watched, session, sinks, env: io.env, signal: io.signal }) : undefined;
  const spec = path ? { kind: 'file' as const, path, shown: target } : { kind: 'stdin' as const };
  // process.stdin is made only to be read: making it loads the stream modules (5 ms at every start).
  const stdin = spec.kind === 'stdin' ? io.stdin : undefined;
  const opened = openSource(spec, { follow, fromEnd: Boolean(values['from-end']), stdin, stdinFd: io.stdinFd }, { signal: stop.signal });
  const source = opened.items;
  if (memory.warning) sinks.notice({ type: 'history', detail: memory.warning });
  const ticker = setInterval(() => sinks.tick(), 1000);
  const hangup = outliveHangup(io, 'watching on; the exit code and the history will give the verdict');
  let result: LoopResult;
  try {
    result = await runWatchLoop({
      source,
      session,
      wall: stopAtVerdict ? () => systemClock.now() : undefined,
      stopAtVerdict,
      onSettled: serveOn ? (verdict) => serveOn.settled(verdict) : undefined,
      liveAfterCatchUp: Boolean(path) && follow,
      timeoutMs,
      signal: processWatch?.signal ?? io.signal,
      deciders: processWatch ? [processWatch.decider] : [],
      onEvents: (events) => {
        sinks.events(events);
        serveOn?.events(events);
      },
      // The file as the user named it (`server.log`), like tail -F says it.
      onNotice: (given) => {
        const notice = given.path !== undefined && given.path === path ? { ...given, path: target } : given;
        // Damage is said in every format, --quiet included: the verdict rests on part of the log.
        if (notice.type === 'damaged') sinks.message(`spinup: ${noticeText(notice)}`);
        else sinks.notice(notice);
      },
      onEarlierVerdict: (verdict) => sinks.earlier(verdict, earlierDetail(verdict)),
    });
  } catch (error) {
    // The file or pipe failed under us (EIO, a file that went unreadable): say which input it was.
    if (typeof (error as NodeJS.ErrnoException | undefined)?.syscall === 'string' || error instanceof GzipError) {
      throw new InputError(`${path ? target : 'stdin'}: cannot read: ${readFailure(error)}`, { cause: error });
    }
    throw error;
  } finally {
    processWatch?.close();
    hangup();
    clearInterval(ticker);
    stop.abort();
    opened.close();
  }
  // Stopped while its READY was settling (the probes already said 200): READY all the same.
  const stoppedReady = result.end === 'interrupted' && session.verdict?.verdict === 'ready' && serveOn?.settled(session.verdict) === 'read-on';
  if ((result.readOn || stoppedReady) && serveOn) {
    // READY was said when it came; now only how the watch ended, and the code of where the server stands.
    sinks.message(`spinup: ${serveOn.endText(session.verdict, result.end === 'interrupted' ? 'stopped' : 'the input ended')}`);
    return serveOn.exitCode(session.verdict);
  }
  const activityVerdict = processWatch?.verdict;
  if (activityVerdict && result.end === 'interrupted' && !io.signal?.aborted) return settle(activityVerdict, { sinks, memory });
  return finish({ result, sinks, session, timeoutMs, memory, color: useColor(io, 'stdout') });
}

function recordVerdict(memory: StartMemory, sinks: Sinks, verdict: Verdict): void {
  const unrecorded = memory.record(verdict);
  if (unrecorded) sinks.notice({ type: 'history', detail: unrecorded });
}

/** A verdict decided beside the log (the processes' activity): reported, recorded, its exit code. */
function settle(verdict: Verdict, { sinks, memory }: { sinks: Sinks; memory: StartMemory }): number {
  // As the log's verdicts reach them: an event (JSON, the status API), then the verdict (the text block).
  sinks.events([{ type: 'verdict', verdict }]);
  sinks.verdict({ verdict, inEvents: true });
  recordVerdict(memory, sinks, verdict);
  return exitCodeFor(verdict.verdict);
}

function finish({ result, sinks, session, timeoutMs, memory, color }: { result: LoopResult; sinks: Sinks; session: StartMemory['session']; timeoutMs: number | undefined; memory: StartMemory; color: boolean }): number {
  const where = (): string => standing(session, pc.createColors(color));
  if (result.end === 'interrupted') {
    sinks.message(`interrupted: ${where()}`);
    return EXIT.interrupted;
  }
  if (result.end === 'timeout') {
    sinks.message(`timed out after ${formatDuration(timeoutMs ?? 0)} with no verdict: ${where()}`);
    return EXIT.stalled;
  }
  if (result.truncatedBytes > 0) sinks.message(`note: ${result.truncatedBytes} bytes of over-long lines were cut (lines are capped at 64 KiB)`);
  // The session always settles on a verdict when the input ends (incomplete at least).
  const verdict = result.verdict!;
  // The session's last events (the loop's) held it already.
  sinks.verdict({ verdict, inEvents: true });
  recordVerdict(memory, sinks, verdict);
  return exitCodeFor(verdict.verdict);
}

/** The file already ended in a verdict: say so, since watch now waits a while for a new run. */
function earlierDetail(verdict: Verdict): string {
  return `the latest run in the log had already ended ${verdict.verdict.toUpperCase()} at line ${verdict.decidedBy?.lineNo ?? '?'} before watch started; reporting it unless a new run starts within ${formatDuration(EARLIER_VERDICT_WAIT_MS)}`;
}

function checkReadable(path: string, shown: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw new InputError(`${shown}: ${readFailure(error)}`, { cause: error });
  }
  if (stats.isDirectory()) throw new InputError(`${shown}: is a directory, not a log file`);
  if (stats.isSocket()) throw new InputError(`${shown}: is a socket, not a log file`);
  // /dev/zero or a disk has no end to read to; a FIFO (or `<(cmd)`) does, and is read like stdin.
  if (stats.isCharacterDevice()) throw new InputError(`${shown}: is a character device, not a log file`);
  if (stats.isBlockDevice()) throw new InputError(`${shown}: is a block device, not a log file`);
}

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP') return 'too many levels of symbolic links (a symlink loop?)';
  if (code === 'EISDIR') return 'is a directory, not a log file';
  return (error as Error).message;
}
