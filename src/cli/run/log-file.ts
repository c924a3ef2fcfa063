/** The log `spinup run` tees the server's output to: always a new file, never one that existed. */
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';

export interface RunLog {
  path: string;
  /** The path as people should see it: relative to the working directory when inside it. */
  shown: string;
  write(bytes: Buffer): void;
  /** The open descriptor, for a process that appends after us (--keep-on-fail's drainer); -1 once closed. */
  descriptor(): number;
  close(): void;
  /** Removes the file again (the server never started), if nothing was written to it. */
  discard(): void;
}

/** Collisions of the default name (two runs in the same second) get a numbered suffix, up to this many. */
const MAX_SUFFIX = 100;

export function openRunLog(options: { cwd: string; requested?: string; now: Date }): RunLog {
  const { cwd, requested } = options;
  if (requested !== undefined) return openNew(resolve(cwd, requested), cwd, requested);
  const stem = `spinup-run-${stamp(options.now)}`;
  for (let n = 1; n <= MAX_SUFFIX; n++) {
    const path = resolve(cwd, n === 1 ? `${stem}.log` : `${stem}-${n}.log`);
    try {
      return openNew(path, cwd, undefined);
    } catch (error) {
      if (!(error instanceof UsageError && error.message.includes('already exists'))) throw error;
    }
  }
  throw new UsageError(`could not find a free log name like ${stem}.log in ${cwd}; name one with --log FILE`);
}

function openNew(path: string, cwd: string, requested: string | undefined): RunLog {
  const flag = requested === undefined ? 'the log' : `--log ${requested}`;
  let fd: number;
  try {
    // 'wx': O_CREAT|O_EXCL, so an existing log (an earlier run's evidence) is never overwritten, even in a race.
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${flag}: ${path} already exists; spinup run never overwrites a log (choose a new name or remove it)`);
    if (code === 'ENOENT') throw new UsageError(`${flag}: the directory ${dirname(path)} does not exist`);
    if (code === 'EISDIR') throw new UsageError(`${flag}: ${path} is a directory; name a file`);
    throw new UsageError(`${flag}: cannot create ${path}: ${(error as Error).message}`);
  }
  let written = 0;
  let open = true;
  return {
    path,
    shown: shownPath(path, cwd),
    write(bytes: Buffer): void {
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      written += bytes.length;
    },
    descriptor(): number {
      return open ? fd : -1;
    },
    close(): void {
      if (open) closeSync(fd);
      open = false;
    },
    discard(): void {
      this.close();
      if (written === 0) unlinkSync(path);
    },
  };
}

function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) ? `.${sep}${rel}` : path;
}

/** YYYYmmdd-HHMMSS in local time: what a person looking for "the run from this morning" reads. */
function stamp(now: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
}
