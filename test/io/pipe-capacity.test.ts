/**
 * widenPipe asks Linux for a 1 MiB pipe through a real perl (or python3) on a real FIFO. A
 * pipe's capacity is measured from its write end: bytes a non-blocking writer gets in before
 * EAGAIN, with nobody reading. What was in the pipe before stays there, every byte.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { widenPipe, WIDENERS, type Widener } from '../../src/io/pipe-capacity.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-pipe-capacity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fifos = 0;

const DEFAULT_CAPACITY = 64 * 1024;
const wanted = Math.min(1 << 20, Number(readFileSync('/proc/sys/fs/pipe-max-size', 'utf8')));

/** Descriptors a test opened, closed after it. */
const opened: number[] = [];
afterEach(() => opened.splice(0).forEach((fd) => closeSync(fd)));

/** Both ends of a new FIFO, non-blocking (closed after the test). */
function fifo(): { read: number; write: number } {
  const path = join(dir, `fifo-${++fifos}`);
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
  const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const write = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  opened.push(read, write);
  return { read, write };
}

/** Fills the pipe till it takes no more, then empties it: the bytes it held. */
function capacity(ends: { read: number; write: number }): number {
  const page = Buffer.alloc(4096, 0x61);
  let held = 0;
  for (;;) {
    try {
      held += writeSync(ends.write, page);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
  }
  drain(ends.read);
  return held;
}

function drain(fd: number): Buffer {
  // A read end made blocking (the bug CHILD_FD avoids) would hang here rather than fail.
  if (!nonBlocking(fd)) throw new Error('the read end is blocking now');
  const parts: Buffer[] = [];
  const into = Buffer.alloc(1 << 16);
  for (;;) {
    try {
      const n = readSync(fd, into);
      if (n === 0) break;
      parts.push(Buffer.from(into.subarray(0, n)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
  }
  return Buffer.concat(parts);
}

/** O_NONBLOCK of the open file behind `fd`, as a perl given it as its fd 3 reads it (F_GETFL). */
function nonBlocking(fd: number): boolean {
  const result = spawnSync('perl', ['-e', `open(my $f, "<&=3") or exit 2; exit((fcntl($f, 3, 0) & ${constants.O_NONBLOCK}) ? 0 : 1)`], { stdio: ['ignore', 'ignore', 'inherit', fd] });
  if (result.status === 2 || result.status === null) throw new Error('perl could not read the descriptor\'s flags');
  return result.status === 0;
}

const perl = WIDENERS.find((w) => w.command === 'perl')!;
const python = WIDENERS.find((w) => w.command === 'python3')!;
const missing: Widener = { command: 'spinup-no-such-program', args: () => [] };
const runs = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

describe('widenPipe', () => {
  it('makes a 64 KiB pipe hold 1 MiB (pipe-max-size, if less), keeping the bytes already in it', async () => {
    const ends = fifo();
    expect(capacity(ends)).toBe(DEFAULT_CAPACITY);
    writeSync(ends.write, 'written before\n');
    expect(await widenPipe(ends.read)).toBe(true);
    // Still non-blocking: a blocking read end would stall the watch (and hang this test).
    expect(nonBlocking(ends.read)).toBe(true);
    expect(drain(ends.read).toString()).toBe('written before\n');
    expect(capacity(ends)).toBe(wanted);
    // Asked again, a pipe that big is left as it is.
    expect(await widenPipe(ends.read)).toBe(true);
    expect(capacity(ends)).toBe(wanted);
  });

  it('goes on to the next program when one is missing, and changes nothing when none is there', async () => {
    const ends = fifo();
    expect(await widenPipe(ends.read, [missing])).toBe(false);
    expect(capacity(ends)).toBe(DEFAULT_CAPACITY);
    expect(await widenPipe(ends.read, [missing, perl])).toBe(true);
    expect(capacity(ends)).toBe(wanted);
  });

  it('with python3 alone: widened where python3 runs, else left as it was', async () => {
    const ends = fifo();
    const there = runs('python3', ['-c', '0']);
    expect(await widenPipe(ends.read, [python])).toBe(there);
    expect(capacity(ends)).toBe(there ? wanted : DEFAULT_CAPACITY);
  });

  it('says no for what is not a pipe, and leaves it alone', async () => {
    const path = join(dir, 'plain.log');
    const fd = openSync(path, 'w+');
    opened.push(fd);
    writeSync(fd, 'a line\n');
    expect(await widenPipe(fd, [perl])).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('a line\n');
  });
});
