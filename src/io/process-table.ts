import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The fields of `/proc/<pid>/stat` the supervisor needs. */
export interface ProcStat {
  pid: number;
  /** The command name (at most 15 characters), as `ps -o comm` shows it. */
  comm: string;
  /** One-letter state: R, S, D, Z (zombie), T... */
  state: string;
  ppid: number;
  pgid: number;
  /**
   * CPU time in clock ticks: its own (utime + stime, all its threads, living or not) plus that of the children
   * it reaped (cutime + cstime), so that a worker's CPU stays counted after it exits.
   */
  cpuTicks: number;
  threads: number;
  /** Clock ticks after boot when it started: with the pid, names a process even after the pid is reused. */
  startTicks: number;
}

/** A process named for a person (`1234 (python3)`); `startTicks` tells it from a later one given the same pid. */
export interface ProcessRef {
  pid: number;
  comm: string;
  startTicks: number;
}

/** Whether `ref` still runs: the same process (not a reused pid), and not a zombie. */
export function isRunning(ref: ProcessRef): boolean {
  const stat = readProcStat(ref.pid);
  return stat !== undefined && stat.startTicks === ref.startTicks && stat.state !== 'Z';
}

/** The fields of `/proc/<pid>/io`: bytes read and written by the process and the children it reaped. */
export interface ProcIo {
  /** Bytes passed to read() and the like, from storage, the page cache, pipes or sockets. */
  rchar: number;
  wchar: number;
  /** Bytes the process caused to be fetched from storage, page faults on mmap included. */
  readBytes: number;
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
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  // Fields as numbered in proc(5), minus 3: `state` is field 3.
  const at = (field: number): number => Number(fields[field - 3]);
  const [state, ppid, pgid] = [fields[0], at(4), at(5)];
  if (state === undefined || !Number.isInteger(ppid) || !Number.isInteger(pgid)) return undefined;
  const comm = text.slice(text.indexOf('(') + 1, close);
  const cpuTicks = at(14) + at(15) + at(16) + at(17);
  return { pid, comm, state, ppid, pgid, cpuTicks: Number.isFinite(cpuTicks) ? cpuTicks : 0, threads: at(20) || 1, startTicks: at(22) || 0 };
}

/** Reads `/proc/<pid>/io`; undefined when the process is gone or may not be read (another user's, say). */
export function readProcIo(pid: number): ProcIo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/io`, 'latin1');
  } catch {
    return undefined;
  }
  // `rchar: 123` lines; read on every sample of every process of a tree, so parsed without a regex.
  const fields = new Map(text.split('\n').map((line) => line.split(': ') as [string, string]));
  const field = (name: string): number => Number(fields.get(name) ?? 0);
  return { rchar: field('rchar'), wchar: field('wchar'), readBytes: field('read_bytes') };
}

/** Every process this host shows (live and zombie), read from /proc; empty without /proc. */
export function listProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const pid of procPids()) {
    const stat = readProcStat(pid);
    if (stat !== undefined) stats.push(stat);
  }
  return stats;
}

/** The targets of a process's open file descriptors (`socket:[123]`, `/var/log/x`); empty when unreadable. */
export function readFdLinks(pid: number, fds?: number[]): string[] {
  let names: string[];
  try {
    names = fds?.map(String) ?? readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const links: string[] = [];
  for (const name of names) {
    try {
      links.push(readlinkSync(`/proc/${pid}/fd/${name}`));
    } catch {
      // Closed between the listing and the read.
    }
  }
  return links;
}

/** Pids of processes that hold any of `links` open (a pipe's `socket:[inode]`, say), ours excluded. */
export function holdersOf(links: ReadonlySet<string>): number[] {
  if (links.size === 0) return [];
  return procPids().filter((pid) => pid !== process.pid && readFdLinks(pid).some((link) => links.has(link)));
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

/**
 * The server a sidecar looks for by its command line (`--pid-of sglang.launch_server`): of the processes whose
 * command line contains `pattern`, the oldest whose parent is not one of them (a launcher, not its workers).
 * Ours and our ancestors' are left out (their command lines hold the pattern too).
 */
export function findProcessByCommand(pattern: string): ProcStat | undefined {
  const ours = ownLineage();
  const matching = listProcStats().filter((stat) => stat.state !== 'Z' && !ours.has(stat.pid) && commandLine(stat.pid)?.includes(pattern));
  const pids = new Set(matching.map((stat) => stat.pid));
  return matching.filter((stat) => !pids.has(stat.ppid)).sort((a, b) => a.startTicks - b.startTicks || a.pid - b.pid)[0];
}

/** This process and its ancestors up to (not including) PID 1. */
export function ownLineage(): Set<number> {
  const lineage = new Set<number>();
  for (let pid: number | undefined = process.pid; pid !== undefined && pid > 1 && !lineage.has(pid); pid = readProcStat(pid)?.ppid) lineage.add(pid);
  return lineage;
}

/** `/proc/<pid>/cmdline` with its NULs as spaces; undefined when gone. */
export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0+$/, '').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
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

/** Whether this host has a Linux /proc to read processes from (not macOS, say). */
export function procAvailable(): boolean {
  return !hasNoProc();
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
