/**
 * A lock file beside the history (`history.jsonl.lock`), created with O_EXCL. It guards the
 * check-then-write of an append (a torn last record must be closed before a new one starts);
 * the records themselves are single O_APPEND writes. A lock left by a dead writer is taken
 * over once its process is gone or it is older than any write could take.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { systemClock } from '../io/wall-clock.js';

export interface LockOptions {
  /** How long to wait for a busy lock. */
  waitMs?: number;
  /** A lock older than this is stale whoever holds it (a write takes milliseconds). */
  staleMs?: number;
}

export interface Lock {
  /** False when the wait ran out: the caller goes on without it (appends stay atomic). */
  held: boolean;
  release(): void;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function acquireLock(path: string, options: LockOptions = {}): Lock {
  const waitMs = options.waitMs ?? 5_000;
  const staleMs = options.staleMs ?? 30_000;
  const token = `${process.pid}@${hostname()} ${randomHex()}`;
  const deadline = systemClock.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      try {
        writeSync(fd, token);
      } finally {
        closeSync(fd);
      }
      return { held: true, release: () => releaseIfOurs(path, token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (isStale(path, staleMs)) {
      takeOver(path, staleMs);
      continue;
    }
    if (systemClock.now() >= deadline) return { held: false, release: () => {} };
    Atomics.wait(sleeper, 0, 0, Math.min(50, 2 + attempt * 5));
  }
}

function isStale(path: string, staleMs: number): boolean {
  try {
    if (systemClock.now() - statSync(path).mtimeMs > staleMs) return true;
    return holderIsGone(readFileSync(path, 'utf8'));
  } catch {
    return false; // gone already, or unreadable: just try again
  }
}

/** `PID@HOST token`: on this host, a holder whose process is gone left the lock behind. */
function holderIsGone(content: string): boolean {
  const match = /^(\d+)@(\S+) /.exec(content);
  if (!match || match[2] !== hostname()) return false;
  try {
    process.kill(Number(match[1]), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Moves the stale lock aside, then checks that what was moved is still stale: if another
 * writer took the lock over in between, its fresh lock is put back (without clobbering).
 */
function takeOver(path: string, staleMs: number): void {
  const aside = `${path}.${process.pid}.${randomHex()}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  try {
    if (!isStale(aside, staleMs)) linkSync(aside, path);
  } catch {
    // Someone holds a new lock already; ours to clean up is only the file set aside.
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      /* already gone */
    }
  }
}

function releaseIfOurs(path: string, token: string): void {
  try {
    if (readFileSync(path, 'utf8') === token) unlinkSync(path);
  } catch {
    /* taken over as stale, or removed: nothing to release */
  }
}

/**
 * A random part that tells two writers' tokens and files apart. It need not be unguessable, so
 * Math.random serves, and a start does not load node:crypto for it.
 */
function randomHex(): string {
  return Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, '0');
}
