import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followFile, type FollowItem, type FollowOptions } from '../../src/io/follow-file.js';
import { READ_BUFFER_BYTES, scanMemory } from '../../src/io/fast-path/wasm/scan-memory.js';

// Real files, real time: every wait is bounded so a regression fails instead of hanging.
const WAIT_MS = 3000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a follower in the background and records what it yields. */
class Tail {
  readonly items: FollowItem[] = [];
  readonly #abort = new AbortController();
  readonly done: Promise<void>;
  settled = false;

  constructor(file: string, options: Omit<FollowOptions, 'signal'> = {}) {
    this.done = (async () => {
      for await (const item of followFile(file, { ...options, signal: this.#abort.signal })) this.items.push(item);
    })().finally(() => {
      this.settled = true;
    });
  }

  get text(): string {
    return this.items.map((i) => (i.kind === 'data' ? i.chunk.toString('utf8') : '')).join('');
  }

  get notices(): string[] {
    return this.items.flatMap((i) => (i.kind === 'notice' ? [i.notice.type] : []));
  }

  /** Data and notices in order, data as text: `['old\n', '<rotated>', 'new\n']`. */
  get timeline(): string[] {
    const out: string[] = [];
    for (const item of this.items) {
      if (item.kind === 'notice') out.push(`<${item.notice.type}>`);
      else if (out.length > 0 && !out[out.length - 1]!.startsWith('<')) out[out.length - 1] += item.chunk.toString();
      else out.push(item.chunk.toString());
    }
    return out;
  }

  async until(what: string, predicate: (tail: Tail) => boolean, ms = WAIT_MS): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate(this)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.timeline)}`);
      await sleep(5);
    }
  }

  untilText(text: string): Promise<void> {
    return this.until(JSON.stringify(text), (t) => t.text === text);
  }

  untilNotice(type: string): Promise<void> {
    return this.until(`<${type}>`, (t) => t.notices.includes(type));
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.done;
  }
}

/** Waits until this process has `file` open: the only outward sign that a follower started. */
async function untilHeldOpen(file: string): Promise<void> {
  const held = (): boolean =>
    fs.readdirSync('/proc/self/fd').some((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  for (const deadline = Date.now() + WAIT_MS; !held(); await sleep(5)) {
    if (Date.now() > deadline) throw new Error(`${file} was never opened`);
  }
}

let dir: string;
let tails: Tail[];

function follow(file: string, options?: Omit<FollowOptions, 'signal'>): Tail {
  const tail = new Tail(file, options);
  tails.push(tail);
  return tail;
}

beforeEach(async () => {
  dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'spinup-follow-'));
  tails = [];
});

afterEach(async () => {
  await Promise.all(tails.map((t) => t.stop()));
  await fs.promises.rm(dir, { recursive: true, force: true });
});

describe('followFile: appearing and appending', () => {
  it('waits for a file created after start, then reads it from its start', async () => {
    const file = path.join(dir, 'server.log');
    const tail = follow(file);
    await tail.untilNotice('waiting');
    fs.writeFileSync(file, 'first\n');
    await tail.untilText('first\n');
    expect(tail.timeline).toEqual(['<waiting>', '<appeared>', 'first\n']);
  });

  it('delivers appends within a short latency', async () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'a\n');
    // A poll this slow cannot meet the bound: the fs.watch wake-up must.
    const tail = follow(file, { pollMs: 1000 });
    await tail.untilText('a\n');
    const latencies: number[] = [];
    for (const line of ['b\n', 'c\n', 'd\n']) {
      const expected = tail.text + line;
      const start = performance.now();
      fs.appendFileSync(file, line);
      await tail.untilText(expected);
      latencies.push(performance.now() - start);
    }
    expect(tail.notices).toEqual([]);
    expect(Math.min(...latencies)).toBeLessThan(50);
  });

  it('reads a large file in chunks of at most 1 MiB', async () => {
    const file = path.join(dir, 'big.log');
    const content = Buffer.alloc(3 * 1024 * 1024 + 17, 'x');
    fs.writeFileSync(file, content);
    const tail = follow(file);
    await tail.until('all bytes', (t) => t.text.length === content.length);
    const sizes = tail.items.map((i) => (i.kind === 'data' ? i.chunk.length : 0));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1024 * 1024);
  });

  it('with reuseBuffer: a backlog in chunks of READ_BUFFER_BYTES of the scan memory, each good until the next item, and the lease given back', async () => {
    if (!scanMemory) throw new Error('no WebAssembly SIMD here: the kernels are not built');
    const file = path.join(dir, 'backlog.log');
    const content = Buffer.alloc(3 * READ_BUFFER_BYTES + 17);
    for (let k = 0; k < content.length; k++) content[k] = k % 61 === 0 ? 10 : 0x61 + (k % 23);
    fs.writeFileSync(file, content);
    const stop = new AbortController();
    const chunks: Buffer[] = [];
    let inMemory = 0;
    for await (const item of followFile(file, { reuseBuffer: true, signal: stop.signal })) {
      if (item.kind !== 'data') continue;
      if (scanMemory.holds(item.chunk)) inMemory++;
      // Copied only now, a turn later: a read into this chunk's buffer meanwhile would show.
      await sleep(1);
      chunks.push(Buffer.from(item.chunk));
      if (chunks.reduce((sum, chunk) => sum + chunk.length, 0) >= content.length) stop.abort();
    }
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBe(READ_BUFFER_BYTES);
    expect(inMemory).toBe(chunks.length);
    const leases = [scanMemory.leaseReadBuffers(), scanMemory.leaseReadBuffers()];
    expect(leases.every((lease) => lease !== undefined)).toBe(true);
    for (const lease of leases) lease!.release();
  });

  it.for<[string, boolean, string]>([
    ['starts at the end of an existing file', true, 'new\n'],
    ['reads an existing file from its start by default', false, 'old\nnew\n'],
  ])('fromEnd: %s', async ([, fromEnd, expected]) => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'old\n');
    const tail = follow(file, { fromEnd });
    await untilHeldOpen(file);
    // The end is measured just after the open, in a later turn of the event loop.
    await sleep(50);
    fs.appendFileSync(file, 'new\n');
    await tail.untilText(expected);
  });

  it('fromEnd still reads a file that appears later from its start', async () => {
    const file = path.join(dir, 'server.log');
    const tail = follow(file, { fromEnd: true });
    await tail.untilNotice('waiting');
    fs.writeFileSync(file, 'first\n');
    await tail.untilText('first\n');
  });
});

describe('followFile: rotation and truncation', () => {
  it('follows rename rotations without losing or repeating a byte', async () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'gen0 a\n');
    const tail = follow(file);
    await tail.untilText('gen0 a\n');
    let expected = 'gen0 a\n';
    for (let gen = 1; gen <= 3; gen++) {
      // The writer keeps its fd: lines land in the old file right before and after the rename.
      const writer = fs.openSync(file, 'a');
      fs.writeSync(writer, `gen${gen - 1} before rename\n`);
      fs.renameSync(file, `${file}.${gen}`);
      fs.writeSync(writer, `gen${gen - 1} after rename\n`);
      fs.closeSync(writer);
      fs.writeFileSync(file, `gen${gen} a\n`);
      expected += `gen${gen - 1} before rename\ngen${gen - 1} after rename\ngen${gen} a\n`;
      await tail.untilText(expected);
    }
    expect(tail.timeline).toEqual([
      'gen0 a\ngen0 before rename\ngen0 after rename\n',
      '<rotated>',
      'gen1 a\ngen1 before rename\ngen1 after rename\n',
      '<rotated>',
      'gen2 a\ngen2 before rename\ngen2 after rename\n',
      '<rotated>',
      'gen3 a\n',
    ]);
  });

  it('loses nothing when a writer races the follower across many rotations', async () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, '');
    const rotations = 60;
    // The writer keeps writing to the renamed file, then creates the new one: any bytes the
    // follower reads neither before nor after its switch show up as missing numbers. It waits
    // until this process holds the new file open, so a slow machine cannot make the follower
    // skip a whole generation (which tail -F cannot prevent either).
    const writer = `
      const fs = require('fs'); const [file, pid] = process.argv.slice(1); let n = 0;
      const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      const held = () => fs.readdirSync('/proc/' + pid + '/fd').some((fd) => {
        try { return fs.readlinkSync('/proc/' + pid + '/fd/' + fd) === file; } catch { return false; }
      });
      for (let r = 0; r < ${rotations}; r++) {
        for (const end = Date.now() + 3000; !held(); sleep(1)) if (Date.now() > end) throw new Error('never opened');
        const fd = fs.openSync(file, 'a');
        for (let i = 0; i < 50; i++) { fs.writeSync(fd, 'line ' + n++ + '\\n'); if (i % 10 === 0) sleep(1); }
        fs.renameSync(file, file + '.' + r);
        for (let i = 0; i < 200; i++) fs.writeSync(fd, 'line ' + n++ + '\\n');
        fs.closeSync(fd);
        fs.writeFileSync(file, '');
      }
      fs.appendFileSync(file, 'END\\n');`;
    const tail = follow(file);
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['-e', writer, file, String(process.pid)], { timeout: 10_000 }, (err) => (err ? reject(err) : resolve())),
    );
    await tail.until('END', (t) => t.text.endsWith('END\n'));
    const expected = Array.from({ length: rotations * 250 }, (_, i) => `line ${i}\n`).join('') + 'END\n';
    expect(tail.text === expected, 'the followed text differs from what was written').toBe(true);
    expect(tail.notices).toEqual(Array<string>(rotations).fill('rotated'));
  });

  it('restarts at offset 0 after copytruncate', async () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'a long first run of the server\n');
    const tail = follow(file);
    await tail.untilText('a long first run of the server\n');
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, 'run 2\n');
    await tail.until('data after truncation', (t) => t.text.endsWith('run 2\n'));
    expect(tail.timeline).toEqual(['a long first run of the server\n', '<truncated>', 'run 2\n']);
  });

  it('restarts at offset 0 after a copytruncate whose next write already reaches past the old offset', async () => {
    // Both in one turn of this thread, so the follower cannot look in between: the file only grew.
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'run 1 line\n');
    const tail = follow(file);
    await tail.untilText('run 1 line\n');
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, 'Traceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory.\n');
    await tail.until('data after truncation', (t) => t.text.endsWith('CUDA out of memory.\n'));
    expect(tail.timeline).toEqual(['run 1 line\n', '<truncated>', 'Traceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory.\n']);
    const notice = tail.items.find((i) => i.kind === 'notice');
    expect(notice?.kind === 'notice' && notice.notice.detail).toBe('the bytes before read offset 11 changed (size 79)');
  });

  it('after a copytruncate under a writer that does not append, reads on past the hole, not its zeros', async () => {
    const file = path.join(dir, 'server.log');
    const fd = fs.openSync(file, 'w');
    try {
      fs.writeSync(fd, 'run 1 line\n');
      const tail = follow(file);
      await tail.untilText('run 1 line\n');
      fs.truncateSync(file, 0);
      // The writer's own offset is still 11: the file is now 11 zero bytes, then this.
      fs.writeSync(fd, 'next\n');
      await tail.until('data after truncation', (t) => t.text.endsWith('next\n'));
      expect(tail.timeline).toEqual(['run 1 line\n', '<truncated>', 'next\n']);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('treats a swapped symlink target as a rotation', async () => {
    const first = path.join(dir, 'run-1.log');
    const second = path.join(dir, 'run-2.log');
    const link = path.join(dir, 'latest.log');
    fs.writeFileSync(first, 'one\n');
    fs.writeFileSync(second, 'two\n');
    fs.symlinkSync(first, link);
    const tail = follow(link);
    await tail.untilText('one\n');
    fs.appendFileSync(first, 'one more\n');
    fs.symlinkSync(second, `${link}.tmp`);
    fs.renameSync(`${link}.tmp`, link);
    await tail.untilText('one\none more\ntwo\n');
    expect(tail.timeline).toEqual(['one\none more\n', '<rotated>', 'two\n']);
  });
});

describe('followFile: a path that goes wrong', () => {
  it('reports a deletion once and keeps waiting until aborted', async () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'a\n');
    const tail = follow(file);
    await tail.untilText('a\n');
    fs.unlinkSync(file);
    await tail.untilNotice('deleted');
    await sleep(700);
    expect(tail.timeline).toEqual(['a\n', '<deleted>']);
    expect(tail.settled).toBe(false);
    await tail.stop();
    expect(tail.settled).toBe(true);
  });

  it('reads a deleted file that comes back from its start', async () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'a\n');
    const tail = follow(file);
    await tail.untilText('a\n');
    fs.unlinkSync(file);
    await tail.untilNotice('deleted');
    fs.writeFileSync(file, 'b\n');
    await tail.untilText('a\nb\n');
    expect(tail.timeline).toEqual(['a\n', '<deleted>', '<appeared>', 'b\n']);
  });

  it('reports a path replaced by a directory once, then recovers', async () => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'a\n');
    const tail = follow(file);
    await tail.untilText('a\n');
    fs.unlinkSync(file);
    fs.mkdirSync(file);
    await tail.untilNotice('not-a-file');
    await sleep(300);
    fs.rmdirSync(file);
    fs.writeFileSync(file, 'b\n');
    await tail.untilText('a\nb\n');
    expect(tail.timeline).toEqual(['a\n', '<not-a-file>', '<appeared>', 'b\n']);
    expect(tail.items[1]).toMatchObject({ notice: { type: 'not-a-file', path: file, detail: 'directory' } });
  });

  it('waits on a directory at start and reads the file that replaces it', async () => {
    const file = path.join(dir, 'server.log');
    fs.mkdirSync(file);
    const tail = follow(file);
    await tail.untilNotice('not-a-file');
    fs.rmdirSync(file);
    fs.writeFileSync(file, 'b\n');
    await tail.untilText('b\n');
    // A directory cannot be replaced atomically; the follower may see the gap and say so.
    expect(tail.timeline.filter((step) => step !== '<waiting>')).toEqual(['<not-a-file>', '<appeared>', 'b\n']);
  });

  // Permission denied (EACCES) takes the same path as this case, but tests run as root here
  // and root reads a chmod 000 file anyway, so a symlink loop (ELOOP) stands in for it.
  it('reports an unreadable path once with the OS message, and keeps retrying', async () => {
    const file = path.join(dir, 'server.log');
    fs.symlinkSync(file, file);
    const tail = follow(file, { pollMs: 20 });
    await tail.untilNotice('unreadable');
    await sleep(200);
    expect(tail.notices).toEqual(['unreadable']);
    const notice = tail.items[0]!.kind === 'notice' ? tail.items[0]!.notice : undefined;
    expect(notice?.detail).toMatch(/ELOOP/);
    // Replaced atomically: a moment with no file at all would rightly add a 'waiting' notice.
    fs.writeFileSync(`${file}.new`, 'ok\n');
    fs.renameSync(`${file}.new`, file);
    await tail.untilText('ok\n');
    expect(tail.notices).toEqual(['unreadable', 'appeared']);
  });

  it('treats a dangling symlink as a file still to come', async () => {
    const target = path.join(dir, 'real.log');
    const link = path.join(dir, 'server.log');
    fs.symlinkSync(target, link);
    const tail = follow(link);
    await tail.untilNotice('waiting');
    fs.writeFileSync(target, 'hello\n');
    await tail.untilText('hello\n');
  });
});

describe('followFile: FIFO', () => {
  const write = (fifo: string, text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      // A child opens the FIFO with a blocking open, as a real server would.
      execFile('sh', ['-c', 'printf %s "$1" > "$2"', 'sh', text, fifo], { timeout: WAIT_MS }, (err) =>
        err ? reject(err) : resolve(),
      );
    });

  it('reads a FIFO as a stream, across successive writers', async () => {
    const fifo = path.join(dir, 'server.fifo');
    execFileSync('mkfifo', [fifo]);
    const tail = follow(fifo);
    await write(fifo, 'first writer\n');
    await tail.untilText('first writer\n');
    await write(fifo, 'second writer\n');
    await tail.untilText('first writer\nsecond writer\n');
    expect(tail.notices).toEqual([]);
  });
});

describe('followFile: stopping', () => {
  const openFds = (): number => fs.readdirSync('/proc/self/fd').length;
  const watchers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;

  it.for<[string, (file: string) => Promise<void>]>([
    [
      'breaking out of for await while data flows',
      async (file) => {
        for await (const item of followFile(file)) if (item.kind === 'data') break;
      },
    ],
    [
      'aborting while idle',
      async (file) => {
        const abort = new AbortController();
        setTimeout(() => abort.abort(), 200);
        for await (const item of followFile(file, { signal: abort.signal })) void item;
      },
    ],
    [
      'return() while a next() is pending',
      async (file) => {
        const iterator = followFile(file)[Symbol.asyncIterator]();
        await iterator.next();
        const pending = iterator.next();
        await sleep(150);
        await iterator.return?.();
        expect(await pending).toEqual({ done: true, value: undefined });
      },
    ],
  ])('releases fds and watchers after %s', async ([, run]) => {
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'a\n');
    const fdsBefore = openFds();
    const watchersBefore = watchers();
    await run(file);
    await sleep(20);
    expect(openFds()).toBe(fdsBefore);
    expect(watchers()).toBe(watchersBefore);
  });

  it('releases a FIFO that never saw a writer', async () => {
    const fifo = path.join(dir, 'server.fifo');
    execFileSync('mkfifo', [fifo]);
    const fdsBefore = openFds();
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    for await (const item of followFile(fifo, { signal: abort.signal })) void item;
    await sleep(20);
    expect(openFds()).toBe(fdsBefore);
  });

  it('yields nothing when the signal is already aborted', async () => {
    const items: FollowItem[] = [];
    for await (const item of followFile(path.join(dir, 'none.log'), { signal: AbortSignal.abort() })) items.push(item);
    expect(items).toEqual([]);
  });
});
