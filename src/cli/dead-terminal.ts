/**
 * Node 20 aborts at exit (SIGABRT, an assertion in `node::ResetStdio`) when it restores the mode of
 * a terminal that has hung up (an SSH drop): tcsetattr fails with EIO. It leaves alone descriptors
 * that no longer refer to the file they did at start-up, so a terminal found dead at exit is
 * swapped for /dev/null first, and the process ends with its own exit code.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

const STDIO = [0, 1, 2];

/** The standard descriptors that are terminals now, at start-up. */
export function terminalsAtStart(): number[] {
  return STDIO.filter((fd) => isatty(fd));
}

/** A hung-up terminal refuses even an empty write with EIO; a live one takes it. */
function isDead(fd: number): boolean {
  try {
    writeSync(fd, Buffer.alloc(0));
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EIO';
  }
}

/** Call on 'exit': nothing is written after it, so the descriptors may point at /dev/null. */
export function releaseDeadTerminals(terminals: readonly number[]): void {
  // The three are one terminal in practice (and a read-only stdin cannot be probed by a write).
  if (!terminals.some(isDead)) return;
  for (const fd of terminals) {
    try {
      closeSync(fd);
      // The lowest free descriptor is the one just closed.
      const reopened = openSync('/dev/null', fd === 0 ? 'r' : 'w');
      if (reopened !== fd) closeSync(reopened);
    } catch {
      // Closed is as good as /dev/null for the check at exit.
    }
  }
}
