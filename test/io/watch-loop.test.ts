/**
 * runWatchLoop over real sources: a PassThrough pipe, real files followed by name, and lines as
 * run's merged output gives them, with deciders. Real time, short bounded waits.
 */
import { appendFileSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/events.js';
import { Session, type SessionEvent } from '../../src/core/session.js';
import { READ_BUFFER_BYTES } from '../../src/io/fast-path/wasm/scan-memory.js';
import { fileSource, followSource, streamSource } from '../../src/io/sources.js';
import { runWatchLoop, type LoopDecider, type LoopItem, type LoopResult, type SourceItem, type WatchLoopOptions } from '../../src/io/watch-loop.js';
import { classifyText } from '../../src/replay/run-case.js';
import { shippedPack } from '../helpers/classify.js';
import { repoRoot } from '../helpers/run-main.js';

const fixture = (name: string): Buffer => readFileSync(join(repoRoot, 'fixtures', name));
const READY = fixture('sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const OOM = fixture('sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const READY_LINES = READY.toString('utf8').split('\n');
const WAIT_MS = 3000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const packs = [shippedPack('sglang'), shippedPack('vllm')];
const newSession = (): Session => new Session({ packs, family: 'sglang' });

let dir: string;
let stops: AbortController[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spinup-watch-loop-'));
  stops = [];
});

afterEach(async () => {
  for (const stop of stops) stop.abort();
  await rm(dir, { recursive: true, force: true });
});

/** A loop as `watch` runs it live (wall clock, stop at the verdict), bounded by WAIT_MS. */
async function live(source: WatchLoopOptions['source'], extra: Partial<WatchLoopOptions> = {}): Promise<LoopResult & { events: SessionEvent[]; earlier: Verdict[] }> {
  const events: SessionEvent[] = [];
  const earlier: Verdict[] = [];
  const run = runWatchLoop({
    source,
    session: newSession(),
    wall: () => Date.now(),
    stopAtVerdict: true,
    onEvents: (e) => events.push(...e),
    onEarlierVerdict: (v) => earlier.push(v),
    ...extra,
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the loop did not end')), WAIT_MS)));
  try {
    return { ...(await Promise.race([run, late])), events, earlier };
  } finally {
    clearTimeout(timer);
  }
}

function follow(file: string, fromEnd = false): AsyncGenerator<SourceItem> {
  const stop = new AbortController();
  stops.push(stop);
  return followSource(file, { fromEnd, signal: stop.signal });
}

const pick = (v: Verdict | undefined): Partial<Verdict> => ({ verdict: v?.verdict, stage: v?.stage, cause: v?.cause, rule: v?.rule });

describe('runWatchLoop over a pipe', () => {
  it.for([
    { name: 'whole', size: Infinity },
    { name: '64 KiB', size: 65536 },
    { name: '7-byte', size: 7 },
    { name: '1-byte', size: 1 },
  ])('gives the replay verdict whatever the chunking ($name chunks)', async ({ size }) => {
    const stdin = new PassThrough();
    for (let at = 0; at < OOM.length; at += size) stdin.write(OOM.subarray(at, Math.min(OOM.length, at + size)));
    stdin.end();
    const result = await live(streamSource(stdin));
    const replayed = classifyText(OOM.toString('utf8'), { packs, family: 'sglang' }).verdict;
    expect(result.lines).toBe(108);
    expect(pick(result.verdict)).toEqual(pick(replayed));
    expect(result.verdict?.evidence[0]?.lineNo).toBe(replayed.evidence[0]?.lineNo);
  });

  it('two runs arriving at once: the latest run wins', async () => {
    const stdin = new PassThrough();
    stdin.end(Buffer.concat([READY, OOM]));
    const result = await live(streamSource(stdin));
    expect(result.end).toBe('ended');
    expect(pick(result.verdict)).toMatchObject({ verdict: 'failed', cause: 'gpu_oom' });
    expect(result.events.map((e) => e.type)).toContain('restart');
    expect(result.earlier).toEqual([]);
  });

  it('a verdict ends the loop though the pipe stays open', async () => {
    const stdin = new PassThrough();
    stdin.write(READY);
    const started = Date.now();
    const result = await live(streamSource(stdin));
    expect(result.end).toBe('verdict');
    expect(result.verdict).toMatchObject({ verdict: 'ready', decidedBy: { lineNo: 82 } });
    // Bounded by the grace for lines in flight, not by the (never) end of the pipe.
    expect(Date.now() - started).toBeLessThan(WAIT_MS);
  });

  it('ends at the input end with `incomplete` and the last line seen', async () => {
    const stdin = new PassThrough();
    stdin.end(READY.subarray(0, READY.indexOf('\n[2025-03-08 12:29:13 TP3] Load weight begin')));
    const result = await live(streamSource(stdin));
    expect(result.end).toBe('ended');
    expect(result.verdict).toMatchObject({ verdict: 'incomplete', stage: 'distributed_init', lastLine: { lineNo: 23, text: READY_LINES[22] } });
  });

  it('a timeout ends a silent pipe', async () => {
    const stdin = new PassThrough();
    stdin.write(READY.subarray(0, 2000));
    const result = await live(streamSource(stdin), { timeoutMs: 300, tickMs: 50 });
    expect(result.end).toBe('timeout');
    expect(result.verdict).toBeUndefined();
  });

  it('an abort ends a silent pipe at once', async () => {
    const stdin = new PassThrough();
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const result = await live(streamSource(stdin), { signal: abort.signal });
    expect(result.end).toBe('interrupted');
  });
});

/** Lines as run's merged output gives them: numbered, already cut, live from the first. */
async function* linesSource(batches: Array<string[] | (() => Promise<void>)>): AsyncGenerator<LoopItem> {
  yield { kind: 'caught-up' };
  let lineNo = 0;
  for (const batch of batches) {
    if (typeof batch === 'function') await batch();
    else yield { kind: 'lines', lines: batch.map((text) => ({ text, lineNo: ++lineNo })) };
  }
}

/** A decider that only counts its turns and what it was told. */
function countingDecider(): LoopDecider & { turns: number; interruptions: number } {
  return {
    turns: 0,
    interruptions: 0,
    tick() {
      this.turns++;
    },
    interrupted() {
      this.interruptions++;
    },
  };
}

describe('runWatchLoop as run drives it: lines already cut, deciders, reading on after the verdict', () => {
  const runShape = (source: AsyncIterable<LoopItem>, extra: Partial<WatchLoopOptions> = {}): Promise<LoopResult & { events: SessionEvent[] }> =>
    live(source, { stopAtVerdict: false, skipQuietLines: false, settleAtEnd: false, ...extra });

  it('numbered lines go to the session as they are, and keep going after READY', async () => {
    const after = ['[2025-03-08 12:30:01] INFO:     127.0.0.1:5000 - "GET /health HTTP/1.1" 200 OK', 'after ready, still read'];
    const result = await runShape(linesSource([READY_LINES, after]));
    expect(result.end).toBe('ended');
    expect(result.verdict).toMatchObject({ verdict: 'ready', decidedBy: { lineNo: 82 } });
    expect(result.lines).toBe(READY_LINES.length + after.length);
  });

  it('a decider has a turn after every item and on the ticks of a quiet input', async () => {
    const decider = countingDecider();
    const batches = READY_LINES.slice(0, 50).map((line) => [line]);
    const result = await runShape(linesSource([...batches, () => sleep(400)]), { deciders: [decider], tickMs: 50 });
    expect(result.end).toBe('ended');
    expect(decider.turns).toBeGreaterThan(batches.length + 1);
  });

  it("onAbort 'drain': the deciders are told once, and the loop reads on to the end of its source", async () => {
    const abort = new AbortController();
    const decider = countingDecider();
    const result = await runShape(
      linesSource([READY_LINES.slice(0, 10), async () => abort.abort(), () => sleep(100), READY_LINES.slice(10)]),
      { deciders: [decider], signal: abort.signal, onAbort: 'drain', tickMs: 20 },
    );
    expect(result.end).toBe('ended');
    expect(decider.interruptions).toBe(1);
    expect(result.lines).toBe(READY_LINES.length);
    expect(result.verdict?.verdict).toBe('ready'); // decided by line 82, read after the abort
  });

  it('settleAtEnd false leaves the end of an unfinished start to a decider; the default settles it', async () => {
    const partial = READY_LINES.slice(0, 23);
    expect((await runShape(linesSource([partial]))).verdict).toBeUndefined();
    expect((await runShape(linesSource([partial]), { settleAtEnd: true })).verdict).toMatchObject({ verdict: 'incomplete', lastLine: { lineNo: 23 } });
  });
});

describe('runWatchLoop over a followed file', () => {
  it('a verdict already in the file does not end the watch; the next run decides', async () => {
    const file = join(dir, 'server.log');
    writeFileSync(file, READY);
    const events: SessionEvent[] = [];
    const done = live(follow(file), { onEvents: (e) => events.push(...e) });
    // The earlier verdict shows up in the events, then the loop must keep going.
    for (const deadline = Date.now() + WAIT_MS; !events.some((e) => e.type === 'verdict'); await sleep(10)) {
      if (Date.now() > deadline) throw new Error('no verdict from the backlog');
    }
    await sleep(600);
    appendFileSync(file, OOM);
    const result = await done;
    expect(result.earlier).toMatchObject([{ verdict: 'ready', decidedBy: { lineNo: 82 } }]);
    expect(result.end).toBe('verdict');
    expect(pick(result.verdict)).toMatchObject({ verdict: 'failed', stage: 'load_weights', cause: 'gpu_oom' });
    expect(result.verdict?.evidence[0]?.lineNo).toBe(88 + 106);
  });

  it.for([
    { name: 'the wait for a new run', options: { earlierVerdictWaitMs: 300 } },
    { name: 'a timeout', options: { timeoutMs: 300 } },
  ])('a verdict already in the file stands when no new run starts: $name ends', async ({ options }) => {
    const file = join(dir, 'server.log');
    writeFileSync(file, OOM);
    const started = Date.now();
    const result = await live(follow(file), { tickMs: 50, ...options });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(result.end).toBe('verdict');
    expect(result.earlier).toHaveLength(1);
    expect(result.verdict).toBe(result.earlier[0]);
    expect(pick(result.verdict)).toMatchObject({ verdict: 'failed', cause: 'gpu_oom' });
  });

  it('a verdict on a line that arrived after the start is final', async () => {
    const file = join(dir, 'server.log');
    writeFileSync(file, READY.subarray(0, READY.indexOf('[2025-03-08 12:29:33] The server is fired up')));
    const done = live(follow(file));
    await sleep(150);
    appendFileSync(file, READY.subarray(READY.indexOf('[2025-03-08 12:29:33] The server is fired up')));
    const result = await done;
    expect(result.earlier).toEqual([]);
    expect(result.end).toBe('verdict');
    expect(result.verdict).toMatchObject({ verdict: 'ready', decidedBy: { lineNo: 82 } });
  });

  it('an unterminated last line of a rotated file is a line of its own', async () => {
    const file = join(dir, 'server.log');
    // Everything up to the ready line, which the old file holds without its newline.
    const readyAt = READY.indexOf('[2025-03-08 12:29:33] The server is fired up');
    const readyEnd = READY.indexOf('\n', readyAt);
    writeFileSync(file, READY.subarray(0, readyAt));
    const done = live(follow(file));
    await sleep(150);
    appendFileSync(file, READY.subarray(readyAt, readyEnd));
    await sleep(150);
    renameSync(file, `${file}.1`);
    writeFileSync(file, READY.subarray(readyEnd + 1));
    const result = await done;
    expect(result.verdict).toMatchObject({ verdict: 'ready', decidedBy: { lineNo: 82, text: READY_LINES[81] } });
  });

  it('--no-follow reading: log time only, to the end, latest run wins', async () => {
    const file = join(dir, 'server.log');
    writeFileSync(file, Buffer.concat([OOM, READY]));
    const result = await live(fileSource(file), { wall: undefined, stopAtVerdict: false });
    expect(result.end).toBe('ended');
    expect(result.lines).toBe(108 + 88);
    expect(result.verdict).toMatchObject({ verdict: 'ready', decidedBy: { lineNo: 108 + 82 } });
    expect(result.earlier).toEqual([]);
  });
});

describe('fileSource', () => {
  it('yields the file byte for byte across many reads into its two reused buffers', async () => {
    const file = join(dir, 'big.log');
    // 3.5 read buffers of distinct lines: a chunk overwritten before it was consumed would show.
    const lines = Math.ceil((3.5 * READ_BUFFER_BYTES) / 58);
    const bytes = Buffer.from(Array.from({ length: lines }, (_, i) => `line ${i} ${'x'.repeat(i % 97)}`).join('\n'));
    writeFileSync(file, bytes);
    const copies: Buffer[] = [];
    for await (const item of fileSource(file)) if (item.kind === 'data') copies.push(Buffer.from(item.chunk));
    expect(copies.length).toBeGreaterThan(2);
    expect(Buffer.concat(copies).equals(bytes)).toBe(true);
  });

  it('closes the file when its reader stops early, with a read still in flight', async () => {
    const file = join(dir, 'big.log');
    writeFileSync(file, Buffer.alloc(3 << 20, 'chatter\n'));
    const before = openFileCount();
    const source = fileSource(file);
    await source.next();
    expect(openFileCount()).toBe(before + 1);
    await source.return(undefined);
    expect(openFileCount()).toBe(before);
  });
});

/** Descriptors this process holds open (Linux). */
function openFileCount(): number {
  return readdirSync('/proc/self/fd').length;
}
