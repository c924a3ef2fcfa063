/**
 * stdout that goes away during a watch: its reader left (`| head -1`: EPIPE), its terminal hung
 * up (EIO), its disk is full (ENOSPC). None of that is the answer the user is waiting for, so
 * spinup says so once on stderr, stops writing to stdout and goes on to the verdict, whose code it
 * exits with: exit 0 still means READY and nothing else.
 */
import { noteHangup } from './dead-terminal.js';
import { markLost, type Io } from './io-context.js';

export function guardOutput(io: Io, command: string): void {
  let said = false;
  io.stdout.on('error', (error: NodeJS.ErrnoException) => {
    markLost(io.stdout);
    if (error.code === 'EIO') noteHangup();
    if (said) return;
    said = true;
    const goesOn = command === 'run' ? 'the server is still supervised and its log file keeps every line' : 'spinup goes on without it';
    const why = error.code === 'EPIPE' ? 'stdout was closed (its reader went away)' : `cannot write to stdout (${error.code === 'EIO' ? 'EIO: the terminal is gone' : (error.code ?? error.message)})`;
    io.stderr.write(`spinup: ${why}; ${goesOn}; the exit code still gives the verdict\n`);
  });
  // `2>&1 | head -1`, a closed stderr, a dead terminal: the messages are lost, not the watch.
  io.stderr.on('error', (error: NodeJS.ErrnoException) => {
    markLost(io.stderr);
    if (error.code === 'EIO') noteHangup();
  });
}
