/**
 * The one place spinup reads the wall clock. Loops, followers and probes take a `WallClock` (tests
 * pass a fake one); the edges pass `systemClock`. Core never reads a clock: time is an argument.
 */
export interface WallClock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
}

export const systemClock: WallClock = { now: () => Date.now() };

/** The clock's time as a Date (for ISO stamps and file names). */
export function wallDate(clock: WallClock = systemClock): Date {
  return new Date(clock.now());
}
