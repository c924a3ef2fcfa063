import { listGroupMembers, ownProcessGroup } from './process-table.js';
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
}

interface TerminateGroupOptions {
  pgid: number;
  graceMs: number;
  /** Liveness of the group leader, which may be a zombie or already reaped. */
  isLeaderAlive: () => boolean;
  /** Resolves when the leader's exit is observed, to wake up early instead of waiting for the next poll. */
  leaderExited: Promise<unknown>;
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
  const alive = (): number[] => liveMembers(options);
  if (alive().length === 0) return { escalated: false, survivors: [] };
  signalProcessGroup(options.pgid, 'SIGTERM');
  if (await waitUntilGone(options, options.graceMs)) return { escalated: false, survivors: [] };
  signalProcessGroup(options.pgid, 'SIGKILL');
  await waitUntilGone(options, KILL_SETTLE_MS);
  return { escalated: true, survivors: alive() };
}

function liveMembers(options: TerminateGroupOptions): number[] {
  const members = listGroupMembers(options.pgid);
  if (options.isLeaderAlive() && !members.includes(options.pgid)) members.unshift(options.pgid);
  return members;
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
