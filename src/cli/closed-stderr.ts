/**
 * `spinup run … 2>&-`: a closed stderr. Node never lets a process start without descriptors 0-2:
 * it opens /dev/null read-write in place of a closed one, so writes there succeed and vanish, and
 * `run`'s verdict, printed on stderr, would reach no one. A shell's own `2>/dev/null` opens it
 * write-only, and is a choice to hear nothing; Node's read-write stand-in is the sign of `2>&-`.
 */
import { fstatSync, readFileSync, statSync } from 'node:fs';

const O_ACCMODE = 0o3;
const O_RDWR = 0o2;

export function stderrClosedAtStart(): boolean {
  try {
    const stderr = fstatSync(2);
    if (!stderr.isCharacterDevice() || stderr.rdev !== statSync('/dev/null').rdev) return false;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/2', 'utf8'))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & O_ACCMODE) === O_RDWR;
  } catch {
    // No /proc (not Linux): a stderr that is there is taken as open.
    return false;
  }
}
