/**
 * The start history: an append-only JSON Lines file. Each record is one O_APPEND write,
 * fsynced, under a lock file; readers skip what they cannot use (a record torn by a crash,
 * garbage, a newer format) and count it, so a damaged history never stops a watch.
 */
import { closeSync, fsyncSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { acquireLock, type LockOptions } from './file-lock.js';
import { upgradeRecord, type StartRecord } from './start-record.js';

export interface HistoryRead {
  records: StartRecord[];
  /** Lines skipped, with line numbers and why (for one warning, not one per line). */
  skipped: { line: number; problem: string }[];
  /** Older records upgraded to the current version. */
  upgraded: number;
}

export function readHistory(path: string): HistoryRead {
  const result: HistoryRead = { records: [], skipped: [], upgraded: 0 };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw error;
  }
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const last = index === lines.length - 1; // no newline after it: the write may have been cut
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      result.skipped.push({ line: index + 1, problem: last ? 'a record cut off mid-write' : 'not JSON' });
      return;
    }
    const upgrade = upgradeRecord(raw);
    if ('problem' in upgrade) {
      result.skipped.push({ line: index + 1, problem: upgrade.problem });
      return;
    }
    if ((raw as { v?: unknown }).v === undefined) result.upgraded++;
    result.records.push(upgrade.record);
  });
  return result;
}

/** One line for people: `2 lines of PATH skipped (line 7: not JSON; ...)`, or undefined when clean. */
export function skippedSummary(path: string, read: HistoryRead): string | undefined {
  if (read.skipped.length === 0) return undefined;
  const shown = read.skipped.slice(0, 3).map((s) => `line ${s.line}: ${s.problem}`);
  const more = read.skipped.length > 3 ? `; +${read.skipped.length - 3} more` : '';
  return `${read.skipped.length} unreadable line(s) of ${path} skipped (${shown.join('; ')}${more})`;
}

/** Appends one record durably. Throws on I/O errors: callers decide how loud to be. */
export function appendRecord(path: string, record: StartRecord, lockOptions?: LockOptions): { locked: boolean } {
  mkdirSync(dirname(path), { recursive: true });
  const lock = acquireLock(`${path}.lock`, lockOptions);
  try {
    const fd = openSync(path, 'a+', 0o644);
    try {
      // A writer that died mid-record left no newline: close its line so ours stays whole.
      const prefix = endsWithoutNewline(fd) ? '\n' : '';
      writeAll(fd, Buffer.from(`${prefix}${JSON.stringify(record)}\n`, 'utf8'));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } finally {
    lock.release();
  }
  return { locked: lock.held };
}

function endsWithoutNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/** One write() for the whole record; a short write (disk full) continues where it stopped. */
function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}
