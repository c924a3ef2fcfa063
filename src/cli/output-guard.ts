/**
 * stdout that goes away during a watch: its reader left (`| head -1`: EPIPE), its terminal hung
 * up (EIO), its disk is full (ENOSPC). None of that is the answer the user is waiting for, so
 * spinup says so once on stderr, stops writing to stdout and goes on to the verdict, whose code it
 * exits with: exit 0 still means READY and nothing else.
 *
 * Only the commands that follow a start to a verdict and exit with its code say that. The others
 * (`status | head`, `replay | less` quit early) stop writing: a reader that leaves is the usual
 * end of a pipe (as for `ls | head`), and only a stdout that fails otherwise is worth a word.
 */
import { noteHangup } from './dead-terminal.js';
import { markLost, type Io } from './io-context.js';

/** What goes on without stdout, for the commands whose exit code is a start's verdict. */
const GOES_ON: ReadonlyMap<string, string> = new Map([
  ['run', 'the server is still supervised and its log file keeps every line'],
  ['watch', 'spinup goes on without it'],
  ['attach', 'spinup goes on without it'],
]);

export function guardOutput(io: Io, command: string): void {
  let said = false;
  io.stdout.on('error', (error: NodeJS.ErrnoException) => {
    markLost(io.stdout);
    if (error.code === 'EIO') noteHangup();
    if (said) return;
    said = true;
    const goesOn = GOES_ON.get(command);
    if (goesOn === undefined && error.code === 'EPIPE') return;
    const why = error.code === 'EPIPE' ? 'stdout was closed (its reader went away)' : `cannot write to stdout (${error.code === 'EIO' ? 'EIO: the terminal is gone' : (error.code ?? error.message)})`;
    io.stderr.write(goesOn === undefined ? `spinup ${command}: ${why}\n` : `spinup: ${why}; ${goesOn}; the exit code still gives the verdict\n`);
  });
  // `2>&1 | head -1`, a closed stderr, a dead terminal: the messages are lost, not the watch.
  io.stderr.on('error', (error: NodeJS.ErrnoException) => {
    markLost(io.stderr);
    if (error.code === 'EIO') noteHangup();
  });
}
