/**
 * The CLI as this process runs it: its streams, environment and signals handed to `main`, its
 * exit code returned. `bin.ts` loads this (bundled, through the code cache) and sets the code.
 */
import { EXIT } from '../core/exit-codes.js';
import { releaseDeadTerminals, terminalsAtStart } from './dead-terminal.js';
import { internalErrorReport, main } from './main.js';
import { stderrClosedAtStart } from './closed-stderr.js';
import { markLost } from './io-context.js';

export async function start(): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    // A second Ctrl-C means "now": leave without the clean-up the first one started.
    if (++interrupts > 1) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed stdout or stderr (`| head -1`, a full disk, a dead terminal) is handled by main
  // (cli/output-guard.ts): the watch goes on to its verdict.
  // Closed at start (`2>&-`): lost from the outset, so the verdict goes to stdout (io-context.ts verdictStream).
  if (stderrClosedAtStart()) markLost(process.stderr);
  const terminals = terminalsAtStart();
  process.on('exit', () => releaseDeadTerminals(terminals));
  // A bug that escapes main (thrown in a callback) still ends the way main ends one, not in a bare trace.
  const escaped = (error: unknown): void => {
    if (!process.stderr.destroyed) process.stderr.write(internalErrorReport(error, `in '${process.argv[2] ?? ''}' (escaped)`));
    process.exit(EXIT.internal);
  };
  process.on('uncaughtException', escaped);
  process.on('unhandledRejection', escaped);

  const cwd = workingDirectory();
  if (cwd === undefined) {
    if (!process.stderr.destroyed) process.stderr.write(NO_WORKING_DIRECTORY);
    return EXIT.noInput;
  }
  const code = await main({
    argv: process.argv.slice(2),
    // Only when asked for: making process.stdin opens fd 0 as a stream, which a pipe read by
    // io/pipe-source.ts must not be (two handles on one descriptor would both close it); and a
    // watch of a file never needs it.
    get stdin() {
      return process.stdin;
    },
    stdinFd: 0,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd,
    signal: controller.signal,
  });
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  return code;
}

const NO_WORKING_DIRECTORY =
  "spinup: the current directory no longer exists (deleted, or its mount went away), so paths cannot be resolved; cd to a directory that exists and run spinup again\n";

/** The directory this process runs in; undefined when it was deleted under us (getcwd: ENOENT). */
function workingDirectory(): string | undefined {
  try {
    return process.cwd();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
