/**
 * Node 20 aborts at exit (SIGABRT, an assertion in `node::ResetStdio`) when it restores the mode of
 * a terminal that has hung up (an SSH drop): tcsetattr fails with EIO. It leaves alone descriptors
 * that no longer refer to the file they did at start-up, so a terminal found dead at exit is
 * swapped for /dev/null first, and the process ends with its own exit code.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

const STDIO = [0, 1, 2];

// Set on a sign that the terminal went away (SIGHUP, EIO on a write): only then is it probed at
// exit, so a live terminal is never written to (a background job with tostop would stop on it).
let hangupSeen = false;

export function noteHangup(): void {
  hangupSeen = true;
}

/** The standard descriptors that are terminals now, at start-up. */
export function terminalsAtStart(): number[] {
  return STDIO.filter((fd) => isatty(fd));
}

/**
 * A hung-up terminal refuses even an empty write with EIO; a live one takes it. A descriptor
 * opened read-only (`</dev/tty`) cannot be asked that way: then the hang-up shows in the session,
 * which no longer has a controlling terminal to open (ENXIO).
 */
function isDead(fd: number): boolean {
  try {
    writeSync(fd, Buffer.alloc(0));
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EIO' || (code === 'EBADF' && !controllingTerminalOpens());
  }
}

function controllingTerminalOpens(): boolean {
  try {
    closeSync(openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}

/** Call on 'exit': nothing is written after it, so the descriptors may point at /dev/null. */
export function releaseDeadTerminals(terminals: readonly number[]): void {
  if (!hangupSeen) return;
  for (const fd of terminals.filter(isDead)) {
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
