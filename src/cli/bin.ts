#!/usr/bin/env -S node --max-semi-space-size=2
import { setFlagsFromString } from 'node:v8';
import { EXIT } from '../core/exit-codes.js';
import { releaseDeadTerminals, terminalsAtStart } from './dead-terminal.js';
import { internalErrorReport, main } from './main.js';

// A rule pattern in a user's pack that backtracks catastrophically, which the load-time check
// could not see, falls back to V8's linear-time engine instead of stalling the watch on one line.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
// The shebang's --max-semi-space-size=2: reading a multi-GB log allocates fast, and a small
// young generation keeps peak memory flat (about 80 MB; 100 MB with the default of 16, 92 MB
// with 8) at no measurable cost in speed. It
// must be given at start-up: V8 ignores it when set from here.

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
const terminals = terminalsAtStart();
process.on('exit', () => releaseDeadTerminals(terminals));
// A bug that escapes main (thrown in a callback) still ends the way main ends one, not in a bare trace.
const escaped = (error: unknown): void => {
  if (!process.stderr.destroyed) process.stderr.write(internalErrorReport(error, `in '${process.argv[2] ?? ''}' (escaped)`));
  process.exit(EXIT.internal);
};
process.on('uncaughtException', escaped);
process.on('unhandledRejection', escaped);

process.exitCode = await main({
  argv: process.argv.slice(2),
  // Only when asked for: making process.stdin opens fd 0 as a stream, which a pipe read by
  // io/pipe-source.ts must not be (two handles on one descriptor would both close it).
  get stdin() {
    return process.stdin;
  },
  stdinFd: 0,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.removeListener('SIGINT', onSignal);
process.removeListener('SIGTERM', onSignal);
