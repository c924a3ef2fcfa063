/** Ending (or letting go of) a supervised server's process group, and the small waits that go with it. */
import type { Child, StopReport } from '../child-process.js';
import { systemClock } from '../wall-clock.js';

/** After SIGINT and the grace period, SIGTERM gets this long before SIGKILL. */
const STOP_AFTER_INTERRUPT_MS = 2_000;
const POLL_MS = 50;

/**
 * The main process or any other member of its group is still running (zombies count as dead), or a process
 * that left the group but belongs to the server (child.outsiders).
 */
export function groupAlive(child: Child): boolean {
  return child.isAlive() || child.groupMembers().length > 0 || child.outsiders().length > 0;
}

/** Ctrl-C: SIGINT to the group, up to `graceMs` for all of it to exit, then SIGTERM and SIGKILL. */
export async function interruptGroup(child: Child, graceMs: number): Promise<{ report: StopReport; exitedOnSigint: boolean }> {
  child.signalGroup('SIGINT');
  const deadline = systemClock.now() + graceMs;
  // Polled: the group alone (outsiders are found once, by stop, at a cost of reading every process's fds).
  const running = (): boolean => child.isAlive() || child.groupMembers().length > 0;
  while (running() && systemClock.now() < deadline) await sleep(Math.min(POLL_MS, Math.max(1, deadline - systemClock.now())));
  const exitedOnSigint = !running();
  return { report: await child.stop({ graceMs: Math.min(graceMs, STOP_AFTER_INTERRUPT_MS) }), exitedOnSigint };
}

/**
 * Lets the server run on without us: spinup may exit while it runs. Its output is read while spinup lives, and
 * no longer once it has exited.
 */
export function releaseChild(child: Child): void {
  child.release();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `promise`, or `fallback` after `ms`; the timer never outlives the race (it would hold the process open). */
export async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
