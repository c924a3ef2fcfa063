/** `spinup watch [FILE|-]`: classify a server log, live or after the fact. */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT } from '../../core/exit-codes.js';
import { formatDuration } from '../../core/duration.js';
import { fileSource, followSource, streamSource } from '../../io/sources.js';
import { runWatchLoop, type LoopResult } from '../../io/watch-loop.js';
import { InputError, UsageError } from '../errors.js';
import { WatchReporter, type ReportMode } from '../format/watch-reporter.js';
import { useColor, type Io } from '../io-context.js';
import { durationOption, packsOption } from '../options.js';
import { exitCodeFor } from '../exit-for-verdict.js';
import { historyFlags, historyFlagsHelp, startMemory, type StartMemory } from './history.js';

export const watchHelp = `Usage: spinup watch [options] FILE|-

Classifies an SGLang or vLLM server log: READY, FAILED with its root cause, or STALLED
at a stage. FILE is followed by name like tail -F (it may not exist yet; rotation and
truncation are survived); '-' reads a pipe, e.g.
  ssh gpu-host tail -F /data/server.log | spinup watch -
  python -m sglang.launch_server ... 2>&1 | spinup watch -
A file that already holds earlier runs is classified by its latest run.

Options:
  --pack NAME|FILE    sglang, vllm or a pack file (default: detect from the first lines)
  --no-follow         read FILE (or stdin) to the end on the log's own time, then report
  --from-end          start at the end of FILE instead of its beginning
  --stall DURATION    one stall budget for every stage (default: the pack's per stage)
  --timeout DURATION  give up after this long in all (reported as stalled)
  --json              one JSON event per line: family, stage, progress, warning, verdict
  --quiet             print only the verdict
${historyFlagsHelp}
  -h, --help          show this help

Exit: 0 ready · 1 failed · 2 stalled · 3 input ended with no verdict · 64 usage
      66 file not found (--no-follow) · 78 invalid pack · 130 interrupted`;

export async function watchCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      pack: { type: 'string' },
      'no-follow': { type: 'boolean' },
      'from-end': { type: 'boolean' },
      stall: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
      ...historyFlags,
    },
  });
  if (values.help) {
    io.stdout.write(`${watchHelp}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'name a log FILE to watch, or - for stdin' : 'watch one log at a time');
  const target = positionals[0]!;
  const follow = !values['no-follow'];
  if (values['from-end'] && (!follow || target === '-')) throw new UsageError('--from-end only applies when following a FILE');
  const stallOverrideMs = durationOption('stall', values.stall);
  const timeoutMs = durationOption('timeout', values.timeout);
  const path = target === '-' ? undefined : resolve(io.cwd, target);
  if (path && !follow) checkReadable(path, target);
  const { packs, family } = packsOption(values.pack);

  const memory = startMemory({ io, flags: values, session: { packs, family, classifier: { stallOverrideMs } }, source: 'watch', log: path ?? '-' });
  const session = memory.session;
  const mode: ReportMode = values.json ? 'json' : values.quiet ? 'quiet' : io.stderr.isTTY && follow ? 'status' : 'lines';
  const reporter = new WatchReporter(io, mode, useColor(io, 'stdout'), session);
  const live = follow || target === '-';
  // Stops the follower when the loop ends for any reason, not only on Ctrl-C.
  const stop = new AbortController();
  io.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const source = path ? (follow ? followSource(path, { fromEnd: Boolean(values['from-end']), signal: stop.signal }) : fileSource(path)) : streamSource(io.stdin);
  if (memory.warning) reporter.notice({ type: 'history', detail: memory.warning });
  const ticker = mode === 'status' ? setInterval(() => reporter.refresh(), 1000) : undefined;
  let result: LoopResult;
  try {
    result = await runWatchLoop({
      source,
      session,
      wall: live && !(target === '-' && !follow) ? () => Date.now() : undefined,
      stopAtVerdict: live && !(target === '-' && !follow),
      timeoutMs,
      signal: io.signal,
      onEvents: (events) => reporter.events(events),
      onNotice: (notice) => reporter.notice(notice),
    });
  } finally {
    if (ticker) clearInterval(ticker);
    stop.abort();
    // An open pipe (tail -F upstream) would keep the process alive after the verdict.
    if (!path) io.stdin.destroy();
  }
  return finish(result, reporter, timeoutMs, memory);
}

function finish(result: LoopResult, reporter: WatchReporter, timeoutMs: number | undefined, memory: StartMemory): number {
  if (result.end === 'interrupted') {
    reporter.message(`interrupted: ${reporter.standing()}`);
    return EXIT.interrupted;
  }
  if (result.end === 'timeout') {
    reporter.message(`timed out after ${formatDuration(timeoutMs ?? 0)} with no verdict: ${reporter.standing()}`);
    return EXIT.stalled;
  }
  if (result.truncatedBytes > 0) reporter.message(`note: ${result.truncatedBytes} bytes of over-long lines were cut (lines are capped at 64 KiB)`);
  const verdict = result.verdict;
  if (!verdict) {
    reporter.message('the input was empty');
    return EXIT.incomplete;
  }
  reporter.verdict(verdict);
  const unrecorded = memory.record(verdict);
  if (unrecorded) reporter.notice({ type: 'history', detail: unrecorded });
  return exitCodeFor(verdict.verdict);
}

function checkReadable(path: string, shown: string): void {
  if (!existsSync(path)) throw new InputError(`${shown}: no such file`);
  if (statSync(path).isDirectory()) throw new InputError(`${shown}: is a directory, not a log file`);
}
