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

export interface ReadHistoryOptions {
  /**
   * Read only the newest this many bytes, whole lines of them (what a start learns from: the
   * history only grows, and reading all of it made every start slower than the last).
   */
  tailBytes?: number;
}

export function readHistory(path: string, options: ReadHistoryOptions = {}): HistoryRead {
  const result: HistoryRead = { records: [], skipped: [], upgraded: 0 };
  let window: TextWindow;
  try {
    window = readWindow(path, options.tailBytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw error;
  }
  const lines = window.text.split('\n');
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
  // Line numbers count from the file's start: the lines before a window are counted only when
  // a damaged line needs its number (rarely; a clean read never pays for it).
  if (result.skipped.length > 0 && window.startsAt > 0) {
    const before = linesBefore(path, window.startsAt);
    for (const skipped of result.skipped) skipped.line += before;
  }
  return result;
}

/** The text read, and the byte offset in the file where it starts (at a line's start). */
interface TextWindow {
  text: string;
  startsAt: number;
}

function readWindow(path: string, tailBytes: number | undefined): TextWindow {
  if (tailBytes === undefined) return { text: readFileSync(path, 'utf8'), startsAt: 0 };
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size <= tailBytes) return { text: readFileSync(fd, 'utf8'), startsAt: 0 };
    // One byte more than the window, before it: a window that begins right after a newline
    // keeps its first line whole; otherwise the line it cuts is dropped up to its newline.
    const from = size - tailBytes - 1;
    const bytes = Buffer.allocUnsafe(tailBytes + 1);
    const got = readFully(fd, bytes, from);
    const newline = bytes.subarray(0, got).indexOf(0x0a);
    if (newline === -1) return { text: '', startsAt: size };
    return { text: bytes.toString('utf8', newline + 1, got), startsAt: from + newline + 1 };
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, into: Buffer, position: number): number {
  let got = 0;
  while (got < into.length) {
    const n = readSync(fd, into, got, into.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** How many newlines the file holds before byte `end`. */
function linesBefore(path: string, end: number): number {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let lines = 0;
    for (let at = 0; at < end; ) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, end - at), at);
      if (n === 0) break;
      for (let i = chunk.indexOf(0x0a, 0); i !== -1 && i < n; i = chunk.indexOf(0x0a, i + 1)) lines++;
      at += n;
    }
    return lines;
  } finally {
    closeSync(fd);
  }
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
