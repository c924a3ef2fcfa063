import { readdirSync, readFileSync } from 'node:fs';

/** The fields of `/proc/<pid>/stat` the supervisor needs. */
export interface ProcStat {
  pid: number;
  /** One-letter state: R, S, D, Z (zombie), T... */
  state: string;
  ppid: number;
  pgid: number;
}

/** Reads `/proc/<pid>/stat`; undefined when the process is gone or /proc is unreadable. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or ')', so parse after the last one.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgid] = [fields[0], Number(fields[1]), Number(fields[2])];
  if (state === undefined || !Number.isInteger(ppid) || !Number.isInteger(pgid)) return undefined;
  return { pid, state, ppid, pgid };
}

/**
 * Whether `pid` is a running process. A zombie counts as dead: it has exited and only waits to be reaped,
 * which may never happen when PID 1 does not reap orphans (common in containers).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readProcStat(pid);
  return stat === undefined ? hasNoProc() : stat.state !== 'Z';
}

/** Live (non-zombie) pids whose process group is `pgid`, in ascending order. */
export function listGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const pid of procPids()) {
    const stat = readProcStat(pid);
    if (stat !== undefined && stat.pgid === pgid && stat.state !== 'Z') members.push(pid);
  }
  if (members.length === 0 && hasNoProc() && groupSignalable(pgid)) members.push(pgid);
  return members.sort((a, b) => a - b);
}

/** The process group of this process, so that nobody signals it by mistake. */
export function ownProcessGroup(): number | undefined {
  return readProcStat(process.pid)?.pgid;
}

function procPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

let procMissing: boolean | undefined;
// Without /proc (macOS, say) zombies cannot be told apart and members cannot be listed; degrade to kill(0).
function hasNoProc(): boolean {
  procMissing ??= readProcStat(process.pid) === undefined;
  return procMissing;
}

function groupSignalable(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
