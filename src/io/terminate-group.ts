import { isRunning, listGroupMembers, ownProcessGroup, readProcStat, type ProcessRef } from './process-table.js';
import { systemClock } from './wall-clock.js';

/** What `stop` / `reapGroup` did. */
export interface StopReport {
  /** True when SIGTERM was not enough within the grace period and the group got SIGKILL. */
  escalated: boolean;
  /**
   * Pids still alive after SIGKILL had time to act: usually processes in uninterruptible sleep (a GPU driver
   * tearing down). Empty in the normal case.
   */
  survivors: number[];
  /**
   * Processes of the server's tree outside its process group (they called setsid: Ray workers, daemons), or
   * holding its pipes, that were stopped with the group.
   */
  outsiders: Outsider[];
  /** The command name of each outsider and survivor, to name them to a person. */
  commands: Record<number, string>;
}

/** A process outside the group to stop with it. */
export type Outsider = ProcessRef;

interface TerminateGroupOptions {
  pgid: number;
  graceMs: number;
  /** Liveness of the group leader, which may be a zombie or already reaped. */
  isLeaderAlive: () => boolean;
  /** Resolves when the leader's exit is observed, to wake up early instead of waiting for the next poll. */
  leaderExited: Promise<unknown>;
  /** Processes outside the group that go with it (see StopReport.outsiders). */
  outsiders?: Outsider[];
}

const POLL_MS = 20;
// SIGKILL cannot be ignored, but the kernel may need a moment to tear down a large address space.
const KILL_SETTLE_MS = 2_000;

/** Sends `signal` to every process in group `pgid`; false when the group is already gone. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  if (pgid <= 1 || pgid === ownProcessGroup()) {
    // A negative pid of our own group would signal spinup and everything started with it.
    throw new Error(`refusing to signal process group ${pgid}: it is not a child's own group`);
  }
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw error;
  }
}

/** SIGTERM to the whole group, wait up to `graceMs` for every member to be gone, then SIGKILL. */
export async function terminateGroup(options: TerminateGroupOptions): Promise<StopReport> {
  const outsiders = options.outsiders ?? [];
  const report = (escalated: boolean, survivors: number[]): StopReport => ({ escalated, survivors, outsiders, commands: commandsOf([...outsiders, ...survivors.map(describe)]) });
  if (liveMembers(options).length === 0) return report(false, []);
  signalAll(options, 'SIGTERM');
  if (await waitUntilGone(options, options.graceMs)) return report(false, []);
  signalAll(options, 'SIGKILL');
  await waitUntilGone(options, KILL_SETTLE_MS);
  return report(true, liveMembers(options));
}

function signalAll(options: TerminateGroupOptions, signal: NodeJS.Signals): void {
  signalProcessGroup(options.pgid, signal);
  for (const pid of liveOutsiders(options)) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already, or not ours to signal: it is named as a survivor if it stays.
    }
  }
}

function liveMembers(options: TerminateGroupOptions): number[] {
  const members = listGroupMembers(options.pgid);
  if (options.isLeaderAlive() && !members.includes(options.pgid)) members.unshift(options.pgid);
  return [...members, ...liveOutsiders(options).filter((pid) => !members.includes(pid))];
}

function liveOutsiders(options: TerminateGroupOptions): number[] {
  return (options.outsiders ?? []).filter(isRunning).map((outsider) => outsider.pid);
}

function describe(pid: number): { pid: number; comm: string } {
  return { pid, comm: readProcStat(pid)?.comm ?? '?' };
}

function commandsOf(processes: Array<{ pid: number; comm: string }>): Record<number, string> {
  return Object.fromEntries(processes.map((p) => [p.pid, p.comm]));
}

async function waitUntilGone(options: TerminateGroupOptions, timeoutMs: number): Promise<boolean> {
  const deadline = systemClock.now() + timeoutMs;
  let leaderDone = false;
  void options.leaderExited.then(() => (leaderDone = true));
  for (;;) {
    if (liveMembers(options).length === 0) return true;
    const left = deadline - systemClock.now();
    if (left <= 0) return false;
    const pause = sleep(Math.min(POLL_MS, left));
    await (leaderDone ? pause : Promise.race([pause, options.leaderExited]));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
