/** `spinup run [options] -- CMD ARGS...`: launch the server, tee its log, and supervise the process too. */
import { EXIT } from '../../core/exit-codes.js';
import { wallDate } from '../../io/wall-clock.js';
import { SpawnError, startChild, type Child } from '../../io/child-process.js';
import { groupAlive } from '../../io/supervise/stop.js';
import { InputError } from '../errors.js';
import { write, type Io } from '../io-context.js';
import { historyFlagsHelp, startMemory, type StartMemory } from '../history-flags.js';
import { announceLiveStatus, LiveStatus } from '../live-status.js';
import { listenHelp, packsOption } from '../options.js';
import { silenceHelp } from '../silence-options.js';
import { outliveHangup } from '../outlive-hangup.js';
import { familyFromCommand } from '../run/family.js';
import { modelFromCommand } from '../run/model.js';
import { superviseRun } from '../run/flow.js';
import { openRunLog, type RunLog } from '../run/log-file.js';
import { parseRunArgs, type RunOptions } from '../run/options.js';
import { neverBlockOnTerminal } from '../run/terminal-writes.js';
import { runOutputs, type RunOutputs } from '../run/run-outputs.js';
import { groupRole, groupRunHelp } from '../run/group-options.js';
import { notifyHelp, notifySink } from '../sinks/notify-option.js';

export const runHelp = `Usage: spinup run [options] -- CMD [ARGS...]

Launches an SGLang or vLLM server and supervises it until it is READY, FAILED (with its
root cause) or STALLED (with the stage). spinup reads the server's output AND watches the
process: a server the OOM killer ends without a word is still FAILED (host_oom), within a
second. CMD runs as given (no shell) in its own process group; its stdout and stderr are
merged line by line, echoed to stdout and teed to a new log file.

  spinup run --health http://127.0.0.1:30000/health_generate -- \\
      python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --port 30000

  spinup run --then 'python bench.py --port 8000' -- vllm serve Qwen/Qwen2.5-7B-Instruct

READY: spinup stays attached (keeps teeing; a crash or death after ready ends the run with
exit 1; Ctrl-C stops the server), or with --then runs that command and exits with its code.
FAILED or STALLED: the whole process group is stopped (SIGTERM, SIGKILL after --grace).
A lost terminal (SSH hang-up) does not stop spinup run: it goes on supervising and logging.

Options:
  --log FILE          tee the output to FILE, which must not exist
                      (default ./spinup-run-YYYYmmdd-HHMMSS.log)
  --pack NAME|FILE    sglang, vllm or a pack file (default: from CMD, else from the log)
                      (a FILE's include: packs are read beside it, else the shipped ones)
  --health URL        also probe URL: READY needs the ready line AND an HTTP 200; a 200
                      never hides a fatal line
  --health-wait DURATION  after the ready line, how long URL has to answer 200 before the
                      start is STALLED (default 2m)
  --then 'CMD'        once READY, run CMD with sh -c (env SPINUP_LOG, SPINUP_SERVER_PID),
                      then stop the server and exit with CMD's exit code
  --grace DURATION    from SIGTERM to SIGKILL when stopping the server (default 30s)
  --keep-on-fail      leave the server running on FAILED/STALLED, to inspect it (py-spy dump);
                      its later output still goes to the log
  --stall DURATION    one stall budget for every stage (default: the pack's, per stage)
  --timeout DURATION  STALLED when there is no verdict this long after the launch
${silenceHelp}
  --json              one JSON event per line on stdout; the server's lines go to the log only
  -q, --quiet         do not echo the server's lines; print only the verdict
${notifyHelp}
${historyFlagsHelp}
${listenHelp}
${groupRunHelp}
  -h, --help          show this help

"line N" in a verdict is line N of the log file, which holds the server's output only,
so 'spinup watch --no-follow FILE' and 'spinup explain FILE' read it again later.

Exit: 0 ready (with --then: its exit code) · 1 failed, or crashed/died after ready
      2 stalled · 64 usage, or the --log file exists, or the head refused this
      follower's --node-rank (out of range, or taken) · 66 CMD not found
      69 --listen port in use (nothing is launched) · 78 invalid pack
      130 interrupted (Ctrl-C: SIGINT to the server, SIGTERM/SIGKILL after --grace)`;

export async function runCommand(args: string[], io: Io): Promise<number> {
  const parsed = parseRunArgs(args);
  if (parsed.kind === 'help') {
    write(io.stdout, `${runHelp}\n`);
    return EXIT.ok;
  }
  if (parsed.kind === 'usage') {
    write(io.stderr, `spinup run: ${parsed.message}\n\n${runHelp}\n`);
    return EXIT.usage;
  }
  const { options } = parsed;
  neverBlockOnTerminal([io.stdout, io.stderr]);
  const { packs, family: packFamily } = await packsOption(options.pack, io.env);
  const commandFamily = packFamily === undefined ? familyFromCommand({ command: options.command, args: options.args, packs }) : undefined;
  const family = packFamily ?? (packs.some((p) => p.name === commandFamily) ? commandFamily : undefined);
  const memory = await startMemory({ io, flags: options.history, session: { packs, family, classifier: { stallOverrideMs: options.stallOverrideMs } }, source: 'run' });
  const session = memory.session;
  const role = groupRole(options.group, options.listen, io.env, options.args);
  // Bound before the launch: a taken --listen port fails the run before a server starts.
  const status = await LiveStatus.start({ io, command: 'run', session, listen: options.listen, state: !options.noState });
  const notify = await notifySink(options.notify, { session, stderr: io.stderr });
  const outputs = runOutputs({ role, io, options, session, status, notify });
  let code: number | undefined;
  try {
    announceLiveStatus(io, status);
    code = await launchAndSupervise({ io, options, session, memory, family, commandFamily, status, ...outputs });
    return code;
  } finally {
    // What is still in flight (a follower's last push, a webhook, the state file's last word) is finished first.
    await outputs.sinks.close({ exitCode: code });
  }
}

interface RunStart extends RunOutputs {
  io: Io;
  options: RunOptions;
  session: StartMemory['session'];
  memory: StartMemory;
  family: string | undefined;
  commandFamily: string | undefined;
  status: LiveStatus;
}

async function launchAndSupervise({ io, options, session, memory, family, commandFamily, status, sinks, launched, head, groupReady, groupRefused }: RunStart): Promise<number> {
  const log = openRunLog({ cwd: io.cwd, requested: options.log, now: wallDate() });
  const child = await launch(options, io, log);
  launched({ at: child.startedAt, logShown: log.shown });
  status.setFacts({ serverPid: child.pid, log: log.path, commandModel: modelFromCommand(options.args) });
  const command = [options.command, ...options.args];
  sinks.note({ text: `started pid ${child.pid}: ${command.join(' ')}; log ${log.shown}`, json: { type: 'started', pid: child.pid, command, log: log.shown, wall_ms: child.startedAt } });
  if (commandFamily !== undefined && family === commandFamily) sinks.note({ text: `family ${family} (from the command)`, json: { type: 'family', family, detected: false, from: 'command' } });
  if (memory.warning) sinks.note({ text: `history: ${memory.warning}`, json: { type: 'history', detail: memory.warning } });
  return supervise(child, { io, options, session, memory, log, sinks, group: head, groupReady, groupRefused });
}

async function launch(options: RunOptions, io: Io, log: RunLog): Promise<Child> {
  try {
    return await startChild({ command: options.command, args: options.args, cwd: io.cwd, env: io.env });
  } catch (error) {
    log.discard();
    if (error instanceof SpawnError) throw new InputError(error.message, { cause: error });
    throw error;
  }
}

/**
 * Whatever happens (an internal error, a second Ctrl-C that exits at once), the server does not outlive us; and
 * a hang-up of the terminal does not end us.
 */
async function supervise(child: Child, ctx: Omit<Parameters<typeof superviseRun>[0], 'child' | 'onRelease'>): Promise<number> {
  let released = false;
  const killGroup = (): void => {
    if (released) return;
    try {
      child.signalGroup('SIGKILL');
    } catch {
      // Nothing of the group is left to kill.
    }
    // And what left the group (setsid): found from /proc, synchronously, as an exit handler must.
    for (const { pid } of child.outsiders()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone, or not ours.
      }
    }
  };
  // A lost SSH session must not end the supervision of a long start: keep going, the log file gets it all.
  const hangup = outliveHangup(ctx.io, `supervising on; ${ctx.log.shown} keeps every line and the exit code will give the verdict`);
  process.once('exit', killGroup);
  try {
    return await superviseRun({ ...ctx, child, onRelease: () => (released = true) });
  } finally {
    process.removeListener('exit', killGroup);
    hangup();
    if (!released && groupAlive(child)) {
      await child.stop({ graceMs: Math.min(ctx.options.graceMs, 5_000) });
    }
  }
}
