/**
 * A watch outlives the terminal that started it (an SSH drop sends SIGHUP): a start takes many
 * minutes, and the verdict, the log and the history record matter more than the screen. The
 * grep loop this replaces died with its SSH connection.
 */
import { noteHangup } from './dead-terminal.js';
import { write, type Io } from './io-context.js';

/** Ignores SIGHUP until the returned function is called; says so once, for a stderr that survives (a file). */
export function outliveHangup(io: Io, goesOn: string): () => void {
  let said = false;
  const onHangup = (): void => {
    noteHangup();
    if (said) return;
    said = true;
    write(io.stderr, `spinup: the terminal hung up (SIGHUP); ${goesOn}\n`);
  };
  process.on('SIGHUP', onHangup);
  return () => process.removeListener('SIGHUP', onHangup);
}
