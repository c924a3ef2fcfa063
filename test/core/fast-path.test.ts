/**
 * The fast path (io/quiet-lines.ts) must be invisible: fed through the watch loop with quiet
 * lines left unread, every log gives exactly the events, verdict, line count and truncated bytes it gives when
 * every line is read. Checked on every fixture, on a generated log of a few MB (fixture lines,
 * the chatter of a serving server, and the shapes that once broke the fast path), and on small
 * logs aimed at each condition a quiet line must meet.
 *
 * One thing may differ, by design: after a verdict the clock moves only with the lines read (a
 * timestamp, a progress bar or a gap marker in between is not seen), so times after a verdict
 * are compared from the start of the run they belong to (a new run starts a clock of its own),
 * and the time of a failure after ready is not compared.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/events.js';
import { Session, type SessionEvent } from '../../src/core/session.js';
import { runWatchLoop, type SourceItem } from '../../src/io/watch-loop.js';
import { FAST_PATH_FIRST_CHUNK } from '../../src/io/fast-path/fast-line-reader.js';
import { analysedPack } from '../helpers/analysed-pack.js';
import { sglangHealthyStart, SGLANG_READY } from '../helpers/log-lines.js';
import { repoRoot } from '../helpers/run-main.js';
import { randomFloats as prng } from '../hostile/random.js';
// @ts-expect-error: the bench's generator is plain JavaScript without types.
import { generateFloodStart } from '../bench/generate-flood.mjs';
// @ts-expect-error: the bench's generator is plain JavaScript without types.
import { generateRankBars } from '../bench/generate-rank-bars.mjs';


const packs = [analysedPack('sglang'), analysedPack('vllm')];
const root = join(repoRoot, 'fixtures');
const fixtures = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.log'))
  .sort();

interface Feeding {
  family?: string;
  /** Chunk size, or a seed for random sizes (1 to 4096 bytes). */
  chunks: number | { seed: number };
  wall?: () => number;
  /** The chunk the fast path takes up at: 0 (the first) unless given, so that small chunks test it too. */
  fastPathFirstChunk?: number;
}

async function* chunked(bytes: Buffer, chunks: Feeding['chunks']): AsyncGenerator<SourceItem> {
  const random = typeof chunks === 'number' ? undefined : prng(chunks.seed);
  for (let at = 0; at < bytes.length; ) {
    const size = random ? 1 + Math.floor(random() * (random() < 0.3 ? 50 : 4096)) : (chunks as number);
    yield { kind: 'data', chunk: bytes.subarray(at, at + size) };
    at += size;
  }
}

/** The loop's outcome, and how many lines it handed to the session. */
async function watch(bytes: Buffer, feeding: Feeding, skipQuietLines: boolean, pushed?: string[]): Promise<{ events: string; verdict: string; lines: number; read: number; truncatedBytes: number }> {
  const events: SessionEvent[] = [];
  const session = new Session({ packs, family: feeding.family, classifier: { uncaughtSettleMs: 5_000 } });
  let read = 0;
  const push = session.push.bind(session);
  session.push = (raw, where) => {
    read++;
    pushed?.push(raw);
    return push(raw, where);
  };
  const result = await runWatchLoop({
    source: chunked(bytes, feeding.chunks),
    session,
    wall: feeding.wall,
    stopAtVerdict: false,
    skipQuietLines,
    fastPathFirstChunk: feeding.fastPathFirstChunk ?? 0,
    onEvents: (batch) => events.push(...batch),
  });
  return { ...runRelative(events, result.verdict), lines: result.lines, read, truncatedBytes: result.truncatedBytes };
}

/** The events and the final verdict as JSON, with times after the first verdict counted from their run's start. */
function runRelative(events: SessionEvent[], verdict: Verdict | undefined): { events: string; verdict: string } {
  let decided = false;
  let runStart = 0;
  const times = (shift: number | null) => (key: string, value: unknown) => (key === 'at' && typeof value === 'number' ? (shift === null ? null : value - shift) : value);
  const shifted = events.map((event) => {
    if (decided && event.type === 'restart') runStart = event.at;
    const json = JSON.stringify(event, times(event.type === 'after-ready-failure' ? null : decided ? runStart : 0));
    if (event.type === 'verdict') decided = true;
    return json;
  });
  // The final verdict is the last one given: it was shifted as that event was.
  const last = events.findLast((event) => event.type === 'verdict');
  const verdictJson = verdict && last?.type === 'verdict' && last.verdict === verdict ? shifted[events.lastIndexOf(last)]! : JSON.stringify(verdict);
  return { events: `[${shifted.join(',')}]`, verdict: verdictJson };
}

/** Runs both ways and expects the same; returns the share of lines the fast path left unread. */
async function expectSame(bytes: Buffer, feeding: Feeding): Promise<number> {
  const fast = await watch(bytes, feeding, true);
  const slow = await watch(bytes, feeding, false);
  expect(fast.lines).toBe(slow.lines);
  expect(fast.truncatedBytes).toBe(slow.truncatedBytes);
  expect(fast.verdict).toBe(slow.verdict);
  if (fast.events !== slow.events) expect(firstDifference(fast.events, slow.events)).toBe('');
  return 1 - fast.read / slow.read;
}

function firstDifference(fast: string, slow: string): string {
  const a = JSON.parse(fast) as unknown[];
  const b = JSON.parse(slow) as unknown[];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = JSON.stringify(a[i]);
    const y = JSON.stringify(b[i]);
    if (x !== y) return `event ${i}:\n fast ${x}\n slow ${y}`;
  }
  return '';
}


describe('the fast path changes nothing on any fixture', () => {
  const feedings: { detect?: boolean; chunks: Feeding['chunks']; wall?: () => number }[] = [
    { chunks: 65536 },
    { chunks: 97 },
    { chunks: { seed: 3 } },
    { chunks: 65536, detect: true },
    { chunks: 4096, wall: () => 1_000_000 },
  ];

  it.for(fixtures)('%s', async (log) => {
    const bytes = readFileSync(join(root, log));
    for (const { detect, ...feeding } of feedings) await expectSame(bytes, { ...feeding, family: detect ? undefined : log.split('/')[0] });
  });
});

/** A serving SGLang log in the shape of test/bench/generate-log.mjs, with adversarial shapes mixed in. */
function generatedLog(bytes: number, seed: number): Buffer {
  const random = prng(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const fixtureLines = fixtures.flatMap((f) => readFileSync(join(root, f), 'utf8').split('\n')).filter((l) => l.length < 400);
  const ready = readFileSync(join(root, 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log'), 'utf8').split('\n');
  const oom = readFileSync(join(root, 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log'), 'utf8').split('\n');
  let ms = Date.UTC(2025, 2, 8, 12, 29, 33);
  const stamp = (): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const time = (): string => stamp().slice(11);
  const lines: string[] = [...ready];
  let size = 0;
  const burst = (shape: (m: string) => string): void => {
    for (let j = 0, n = 1 + int(6); j < n; j++) {
      if (random() < 0.1) lines.push('# [... gap in source ...]');
      lines.push(shape(`burst ${int(99)}`));
      if (random() < 0.4) lines.push(`plain chatter ${int(99)}`);
    }
  };
  while (size < bytes) {
    ms += int(40);
    const r = random();
    let line: string;
    if (r < 0.3) line = `[${stamp()} TP0] Decode batch. #running-req: ${int(64)}, #token: ${int(60000)}, token usage: 0.${int(99)}, gen throughput (token/s): ${int(3000)}.00, #queue-req: ${int(4)}`;
    else if (r < 0.38) line = `[${stamp()} TP0] Prefill batch. #new-seq: ${int(8)}, #new-token: ${int(8192)}, #cached-token: ${int(4096)}, #running-req: ${int(64)}`;
    else if (r < 0.55) line = `[${stamp()}] INFO:     10.0.${int(4)}.${int(250)}:${1024 + int(60000)} - "${pick(['GET /health', 'GET /metrics', 'POST /generate'])} HTTP/1.1" 200 OK`;
    else if (r < 0.75) line = `node0${int(2)}:3120${int(8)}:3190${int(8)} [${int(8)}] NCCL INFO Channel ${int(32)}/0 : ${int(8)}[${int(8)}] -> ${int(8)}[${int(8)}] via P2P/IPC`;
    else if (r < 0.79) line = `INFO ${stamp().slice(5, 10)} ${time()} [loggers.py:116] Engine 000: Avg prompt throughput: ${int(5000)}.0 tokens/s`;
    else if (r < 0.82) line = `Processed prompts:  ${int(99)}%|███       | ${int(90)}/100 [00:${10 + int(50)}<00:${10 + int(50)}, ${int(40)}.00it/s]`;
    else if (r < 0.86) line = pick(fixtureLines);
    else if (r < 0.88) line = pick(['', '   ', '[rank0]:', '(APIServer pid=1)', `[I0308 ${time()}.123 12 a.cc:1]`, `[${stamp()} TP0] `]);
    else if (r < 0.89) line = `2025-03-08 ${time()},${int(1000)} - __main__ - INFO - [${stamp()} TP0] ` + pick(['', ' ', 'chatter']);
    else if (r < 0.9) line = `\x1b[36m(EngineCore pid=7)\x1b[0m INFO 03-08 ${time()} [x.py:1] colour`;
    else if (r < 0.91) {
      const t = time();
      burst(pick([(m: string) => `[2025-03-08 ${t} TP0] ${m}`, (m: string) => `2025-03-08 ${t} | INFO | stderr | ${m}`, (m: string) => `INFO 03-08 ${t} [x.py:1] ${m}`]));
      continue;
    } else if (r < 0.912) {
      lines.push('Traceback (most recent call last):');
      for (let j = 0, n = 1 + int(3); j < n; j++) lines.push(`  File "/x/y${j}.py", line ${int(300)}, in f${j}`, `    value = compute_${int(99)}(x)`, '    ^^^^^^^^^', `chatter inside ${int(9)}`);
      lines.push(pick(['RuntimeError', 'ValueError: boom', 'KeyError']), `continued ${int(9)}`, `continued ${int(9)}`);
      continue;
    } else if (r < 0.93) {
      // Lines after ready that hold a rule's literal or a colour code and change nothing, again and again; now and then one that does.
      const rank = int(8);
      line = pick([
        `node0${int(2)}:4120${rank}:4190${rank} [${rank}] NCCL INFO NVLS multicast support is not available on dev ${rank}`,
        `[Gloo] Rank ${rank} is connected to 7 peer ranks. Expected number of connected peer ranks is : 7`,
        `\x1b[36m(APIServer pid=${int(9)})\x1b[0m INFO:     10.0.0.${int(250)}:${1024 + int(60000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
        `\x1b[1;36m(VllmWorker rank=${rank} pid=${int(99)})\x1b[0;0m WARNING 03-08 ${time()} [topk_topp_sampler.py:1] FlashInfer is not available. Falling back.`,
        `\x1b]0;title\x07node01:1:1 [${rank}] NCCL INFO NVLS multicast support is not available on dev 0`,
        random() < 0.1 ? `ZMQ at ${5000 + int(10)} is not available` : 'Port in use? not this line',
      ]);
    } else line = `plain chatter ${int(1e6)} with nothing in it`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push(...oom);
  return Buffer.from(`${lines.join('\n')}\n`);
}

describe('the fast path changes nothing on a generated serving log', () => {
  const log = generatedLog(5e6, 20250308);

  it.for<[string, Feeding, number]>([
    ['family given, 64 KiB reads', { family: 'sglang', chunks: 65536 }, 0.5],
    ['family detected, random reads', { chunks: { seed: 11 } }, 0.5],
    ['vllm pack, 64 KiB reads', { family: 'vllm', chunks: 65536 }, 0.3],
    // Over the scan memory's scratch region: scanned in JavaScript, not by the kernels.
    ['family given, 2 MiB reads', { family: 'sglang', chunks: 2 << 20 }, 0.5],
  ])('%s', async ([, feeding, unread]) => {
    expect(await expectSame(log, feeding)).toBeGreaterThan(unread);
  });
});

describe('the fast path changes nothing on a generated pre-verdict NCCL flood (the bench rows a and b)', () => {
  const flood = (progressEvery: number): Buffer => {
    const file = join(mkdtempSync(join(tmpdir(), 'spinup-flood-')), 'flood.log');
    generateFloodStart(file, { size: 3e6, seed: 20261201, progressEvery });
    return readFileSync(file);
  };

  it.for<[string, number, number]>([
    ['NCCL chatter only', 0, 0.95],
    ['one line in five a shard-bar frame', 5, 0.9],
    ['every other line a shard-bar frame', 2, 0.8],
  ])('%s', async ([, progressEvery, unread]) => {
    const bytes = flood(progressEvery);
    expect(await expectSame(bytes, { family: 'sglang', chunks: 1 << 20 })).toBeGreaterThan(unread);
    expect(await expectSame(bytes, { family: 'sglang', chunks: { seed: 7 } })).toBeGreaterThan(0.5);
  });
});

describe('the fast path changes nothing on 8 ranks drawing their bars at once (the bench rows h and i)', () => {
  const bars = (separator: '\n' | '\r'): Buffer => {
    const file = join(mkdtempSync(join(tmpdir(), 'spinup-rank-bars-')), 'bars.log');
    generateRankBars(file, { size: 3e6, seed: 20261203, separator });
    return readFileSync(file);
  };

  it.for<[string, '\n' | '\r', number]>([
    ['every frame new, on lines of their own', '\n', 0.9],
    ['every frame new, \r-separated in long lines', '\r', 0.5],
  ])('%s', async ([, separator, unread]) => {
    const bytes = bars(separator);
    expect(await expectSame(bytes, { family: 'sglang', chunks: 1 << 20 })).toBeGreaterThan(unread);
    expect(await expectSame(bytes, { family: 'sglang', chunks: { seed: 11 } })).toBeGreaterThan(0);
  });

  it('takes up the fast path at the first chunk of FAST_PATH_FIRST_CHUNK bytes, after smaller ones read plainly', async () => {
    const bytes = bars('\r');
    const small = async function* (): AsyncGenerator<SourceItem> {
      // Small chunks first (read plainly), then the rest at once (the fast path takes up there).
      for (let at = 0; at < 40_000; at += 4_000) yield { kind: 'data', chunk: bytes.subarray(at, at + 4_000) };
      yield { kind: 'data', chunk: bytes.subarray(40_000) };
    };
    const reads = async (firstChunk: number | undefined, source: () => AsyncGenerator<SourceItem>) => {
      const session = new Session({ packs, family: 'sglang' });
      let read = 0;
      const push = session.push.bind(session);
      session.push = (raw, where) => (read++, push(raw, where));
      const result = await runWatchLoop({ source: source(), session, stopAtVerdict: false, fastPathFirstChunk: firstChunk });
      return { read, verdict: JSON.stringify(result.verdict), lines: result.lines };
    };
    const plain = await reads(Number.MAX_SAFE_INTEGER, small);
    const fast = await reads(undefined, small);
    expect(FAST_PATH_FIRST_CHUNK).toBeGreaterThan(4_000);
    expect(fast.verdict).toBe(plain.verdict);
    expect(fast.lines).toBe(plain.lines);
    // Read plainly up to 40,000 bytes, then most lines left unread.
    expect(fast.read).toBeLessThan(plain.read / 2);
    const oneSmall = async function* (): AsyncGenerator<SourceItem> {
      yield { kind: 'data', chunk: bytes.subarray(0, 4_000) };
    };
    // A log of one small chunk is read plainly: every line.
    expect((await reads(undefined, oneSmall)).read).toBe((await reads(Number.MAX_SAFE_INTEGER, oneSmall)).read);
    expect((await reads(0, oneSmall)).read).toBeLessThan((await reads(Number.MAX_SAFE_INTEGER, oneSmall)).read);
  });
});

/** One frame of the shard bar on a line of its own, as tqdm prints it into a log. */
function shardBar(done: number, elapsed: string): string {
  return `Loading safetensors checkpoint shards: ${String(Math.floor((done / 49) * 100)).padStart(3)}% Completed | ${done}/49 [${elapsed}<00:25,  1.75it/s]`;
}

describe('the fast path changes nothing where it once did, or nearly', () => {
  const sg = (time: string, message: string, rank = ' TP0'): string => `[2025-03-08 ${time}${rank}] ${message}`;
  const start = [sg('12:00:00', "server_args=ServerArgs(model_path='x')", ''), sg('12:00:01', 'Load weight begin. avail mem=70.00 GB')];

  it.for<[string, string[]]>([
    ['the last quiet line before a read one has a blank message', [...start, 'chatter one', 'chatter two', '[rank0]:', sg('12:00:02', 'Load weight end. type=X, dtype=torch.bfloat16, avail mem=60.00 GB, mem usage=10.00 GB.')]],
    ['a blank message at the end of a read', [...start, 'chatter one', '', '   ']],
    [
      'a line of prefixes only, under an outer timestamp of another rule',
      [...start, '2025-03-08 12:00:01,500 - app - INFO - [2025-03-08 12:00:01 TP0] chatter', '2025-03-08 12:00:01,500 - app - INFO - [2025-03-08 12:00:01 TP0] ', 'chatter'],
    ],
    ['the same prefixes, then another timestamp', [...start, sg('12:00:01', 'chatter'), sg('12:00:01', 'INFO 03-08 12:00:05 [x.py:1] chatter'), 'chatter']],
    ['a gap, then the same timestamp, then unstamped chatter', [...start, sg('12:00:01', 'chatter'), '# [... gap in source ...]', sg('12:00:01', 'chatter'), 'chatter', sg('12:00:06', 'Memory pool end. avail mem=10.00 GB')]],
    [
      'quiet code lines inside a traceback whose exception has no message',
      [...start, 'Traceback (most recent call last):', '  File "/x.py", line 3, in f', '    value = compute(x)', '    ^^^^^^^', 'chatter', 'RuntimeError', 'chatter', 'chatter'],
    ],
    ['an exception message wrapped over the next lines', [...start, 'Traceback (most recent call last):', '  File "/x.py", line 3, in f', '    f()', 'ValueError: boom', 'wrapped one', 'wrapped two', sg('12:00:02', 'chatter')]],
    ['a thread exception, then chatter, then a blank line, then its traceback', [...start, 'Exception in thread Thread-1:', 'chatter', '', 'Traceback (most recent call last):', '  File "/x.py", line 3, in f', 'ValueError: boom']],
    ['the same second in three formats', [...start, sg('12:00:01', 'a'), '2025-03-08 12:00:01 | INFO | stderr | b', 'INFO 03-08 12:00:01 [x.py:1] c', sg('12:00:01', 'd'), 'chatter', sg('12:00:04', 'Memory pool end. avail mem=10.00 GB')]],
    ['after ready, colour codes around chatter and inside a fatal literal', [...sglangHealthyStart(), SGLANG_READY, '\x1b[31mchatter\x1b[0m', 'chatter', 'Kil\x1b[0mled', '^[[1mchatter', 'chatter']],
    ['after ready, a restart hidden by a colour code', [...sglangHealthyStart(), SGLANG_READY, 'chatter', "\x1b[1m[2025-03-08 13:00:00] server_args=Server\x1b[0mArgs(model_path='x')", 'chatter', sg('13:00:05', 'Init torch distributed begin.')]],
    [
      'after ready, colour codes the bytes are stripped of, and ones left to the line guard',
      [...sglangHealthyStart(), SGLANG_READY, '^[[1mKil^[[0mled', 'chatter', '\x1b]0;title\x07Killed', 'chatter', '\x1b[31mchat\x1b[0mter \x1b[1;3', '\x1b(BKilled', '\x1b[1mKil\x1b[mled\rchatter', 'chatter'],
    ],
    [
      // Each rank prints NCCL's NVLS line (a failure rule's literal, no match) at every set-up: let go by text, until a line with that literal matches.
      'after ready, lines with a failure literal that match nothing, again and again, then one that matches',
      [...sglangHealthyStart(), SGLANG_READY, ...Array.from({ length: 40 }, (_, i) => `node01:41200:4190${i % 4} [${i % 4}] NCCL INFO NVLS multicast support is not available on dev 0`), 'chatter', 'ZMQ at 5555 is not available', 'chatter', 'node01:41200:41900 [0] NCCL INFO NVLS multicast support is not available on dev 0', 'chatter'],
    ],
    [
      'after ready, a line with a literal whose second frame is a fatal failure',
      [...sglangHealthyStart(), SGLANG_READY, 'node01:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0', 'node01:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0\rRuntimeError: CUDA error: an illegal memory access was encountered', 'chatter'],
    ],
    [
      // The same text is let go after a failure (only a new run matters then) and must be read after the next run's ready.
      'a fatal line after a failed verdict, a restart, ready, then the same line again',
      [
        ...start,
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
        sg('12:01:00', 'chatter'),
        'chatter',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
        'chatter',
        ...sglangHealthyStart(),
        SGLANG_READY,
        'chatter',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
        'chatter',
      ],
    ],
    ['fractions out of order within a second', [...start, '[2025-03-08 12:00:01.900 TP0] a', '[2025-03-08 12:00:01.100 TP0] b', 'chatter', '[2025-03-08 12:00:01.200 TP1] Memory pool end. avail mem=10.00 GB']],
    ['a shard bar redrawn between quiet lines, the run ending on a redraw', [...start, shardBar(3, '00:03'), 'chatter', shardBar(3, '00:03'), 'chatter', 'chatter', shardBar(3, '00:03')]],
    ['a redrawn bar after blank quiet lines, then a bar that moves', [...start, shardBar(3, '00:03'), 'chatter', '[rank0]:', shardBar(3, '00:03'), '[rank0]:', shardBar(3, '00:03'), '[rank0]:', shardBar(4, '00:04'), 'chatter']],
    ['a bar redrawn at elapsed 00:00 while the clock moves', [...start, shardBar(0, '00:00'), 'chatter', sg('12:00:05', 'chatter'), shardBar(0, '00:00'), 'chatter', shardBar(0, '00:00'), shardBar(1, '00:01'), sg('12:00:06', 'chatter')]],
    // The bar's elapsed time moves the clock while the bar is stuck (no activity); the chatter after
    // it is activity, and a redraw after that must not stand for it (the stall is timed from it).
    ['a stuck bar moves the clock, chatter, a redraw, then a line past the budget from the bar', [...start, shardBar(3, '00:03'), shardBar(3, '40:00'), 'chatter', shardBar(3, '40:00'), sg('13:30:00', 'chatter')]],
    ['a redrawn bar, then a line that begins with it and goes on', [...start, shardBar(3, '00:03'), 'chatter', shardBar(3, '00:03'), `${shardBar(3, '00:03')} RuntimeError: CUDA error: an illegal memory access was encountered`, 'chatter']],
    ['a redrawn bar, then the same bar twice on one line', [...start, shardBar(3, '00:03'), shardBar(3, '00:03'), `${shardBar(3, '00:03')}\r${shardBar(3, '00:03')}`, shardBar(3, '00:03'), 'chatter']],
    ['a redrawn bar, then the chunk ends on it', [...start, shardBar(3, '00:03'), 'chatter', shardBar(3, '00:03'), shardBar(3, '00:03')]],
    ['a redrawn bar, then silence past the budget', [...start, shardBar(3, '00:03'), 'chatter', shardBar(3, '00:03'), sg('13:30:00', 'chatter'), shardBar(3, '00:03'), 'chatter']],
  ])('%s', async ([, lines]) => {
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    for (const chunks of [65536, 7]) await expectSame(bytes, { family: 'sglang', chunks });
  });
});

describe('the fast path changes nothing around lines over the length cap', () => {
  const sg = (time: string, message: string): string => `[2025-03-08 ${time} TP0] ${message}`;
  const start = [sg('12:00:00', "server_args=ServerArgs(model_path='x')"), sg('12:00:01', 'Load weight begin. avail mem=70.00 GB')];
  // Quiet runs are counted by the kernel when no line in them can be over the cap, line by line
  // otherwise: a line just over it, one just under, one twice over, a run that ends on one.
  it.for<[string, string[]]>([
    ['one just over the cap among short ones', [...start, 'chatter', 'x'.repeat(65_537), 'chatter', 'chatter']],
    ['one just under the cap, then one twice over', [...start, 'chatter', 'y'.repeat(65_536), 'chatter', 'z'.repeat(140_000), 'chatter']],
    ['a quiet run that ends on one over the cap', [...start, 'chatter', 'chatter', 'w'.repeat(100_000), sg('12:00:02', 'chatter')]],
    ['one over the cap, the last line before a silence past the budget', [...start, 'chatter', 'v'.repeat(100_000), sg('13:30:00', 'chatter')]],
  ])('%s', async ([, lines]) => {
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    for (const chunks of [1 << 20, 200_000]) await expectSame(bytes, { family: 'sglang', chunks });
  });
});

describe('the fast path changes nothing after a verdict on random mixes of literals, colour codes and frames', () => {
  // Pieces that join into literals only once codes are stripped, frames that hide a failure or a
  // restart behind a quiet one, and lines that hold a literal yet act on nothing.
  const pieces = [
    'Kil', 'led', '\x1b[0m', '\x1b[1;31m', '\x1b[', '^[[1m', '^[[', '\r', '\x1b]0;t\x07', '\x1b(B', 'é', ' ', 'chatter ',
    'NCCL INFO NVLS multicast support is not available on dev 0', 'ZMQ at 5555 is not available', 'is not avail',
    "server_args=Server", "Args(model_path='x')", 'torch.OutOfMemoryError: CUDA out of memory.', 'RuntimeError: CUDA error: an illegal memory access was encountered',
  ];
  const mix = (seed: number, before: string[]): Buffer => {
    const random = prng(seed);
    const lines = [...before];
    for (let n = 0; n < 3000; n++) {
      let line = '';
      for (let k = Math.floor(random() * 5); k >= 0; k--) line += pieces[Math.floor(random() * pieces.length)];
      lines.push(random() < 0.5 ? line : 'plain chatter', random() < 0.02 ? '[2025-03-08 13:00:00 TP0] Decode batch. #running-req: 1' : 'more chatter');
    }
    return Buffer.from(`${lines.join('\n')}\n`);
  };
  const failed = [...sglangHealthyStart().slice(0, 3), 'RuntimeError: CUDA error: an illegal memory access was encountered', '[2025-03-08 12:30:00] chatter'];

  it.for<[string, string[], number]>([
    ['after ready', [...sglangHealthyStart(), SGLANG_READY], 1],
    ['after ready, another mix', [...sglangHealthyStart(), SGLANG_READY], 2],
    ['after a failure', failed, 3],
  ])('%s', async ([, before, seed]) => {
    const bytes = mix(seed, before);
    await expectSame(bytes, { family: 'sglang', chunks: 65536 });
    await expectSame(bytes, { family: 'sglang', chunks: { seed } });
  });
});

describe('the fast path changes nothing on bursts of `\\r` frames with a line glued after the last', () => {
  // tqdm writes its frames with `\r` and no newline, so the next line another process writes goes
  // on from the last frame. A burst whose frames all say nothing new and whose glued line is quiet
  // joins a run of quiet lines (QuietLines.passBurst); anything else in it must be read.
  const sg = (time: string, message: string): string => `[2025-03-08 ${time} TP0] ${message}`;
  const start = [sg('12:00:00', "server_args=ServerArgs(model_path='x')"), sg('12:00:01', 'Load weight begin. avail mem=70.00 GB')];
  const frame = (rank: number, done: number, elapsed: number, rate: number): string =>
    `(Worker_TP${rank} pid=${41200 + rank}) Loading safetensors checkpoint shards: ${String(Math.floor((done / 49) * 100)).padStart(3)}% Completed | ${done}/49 [00:${String(elapsed).padStart(2, '0')}<00:25, ${rate.toFixed(2)}it/s]`;
  const nccl = (random: () => number): string => `node01:4120${Math.floor(random() * 8)}:4190${Math.floor(random() * 8)} [${Math.floor(random() * 8)}] NCCL INFO Channel ${Math.floor(random() * 32)}/0 : 1[1] -> 2[2] via P2P/IPC`;
  // What may follow a burst's last frame: quiet chatter, a rule's literal that acts on nothing, a
  // timestamp (the clock's, a new one), a colour code, a gap marker, another bar's tail, blanks,
  // nothing; near the end, a traceback and a line that fails the start.
  const glued = [
    (random: () => number) => nccl(random),
    () => 'node01:41201:41901 [1] NCCL INFO NVLS multicast support is not available on dev 0',
    () => sg('12:00:01', 'chatter'),
    () => sg('12:00:07', 'chatter'),
    () => '\x1b[31mchatter\x1b[0m',
    () => '# [... gap in source ...]',
    () => `${frame(5, 2, 9, 1.5)}chatter`,
    () => '   ',
    () => '',
  ];
  const fatal = [() => 'Traceback (most recent call last):', () => 'RuntimeError: CUDA error: an illegal memory access was encountered'];
  const bursts = (seed: number, ending: '\n' | '\r\n', mixed = 0.2, moves = 0.003): Buffer => {
    const random = prng(seed);
    const done = [1, 1, 1, 1, 1, 1, 1, 1];
    const lines = [...start, ...done.map((d, rank) => frame(rank, d, 1, 1))];
    let elapsed = 2;
    for (let burst = 0; burst < 300; burst++) {
      for (let k = 0, n = 1 + Math.floor(random() * 20); k < n; k++) lines.push(nccl(random));
      let text = '';
      for (let k = 0, n = 1 + Math.floor(random() * 12); k < n; k++) {
        const rank = Math.floor(random() * 8);
        // Now and then a frame moves its bar, or a second of elapsed time passes; more often the
        // last, which the glued line follows.
        const last = k === n - 1;
        if (random() < (last ? 0.05 : moves)) done[rank] = Math.min(48, done[rank]! + 1);
        if (random() < (last ? 0.05 : 0.01)) elapsed = Math.min(59, elapsed + 1);
        text += `\r${frame(rank, done[rank]!, elapsed, 1 + random())}`;
      }
      const choices = burst >= 290 ? [...glued, ...fatal] : glued;
      const tail = random() < mixed ? choices[Math.floor(random() * choices.length)]!(random) : nccl(random);
      lines.push(`${text}${tail}`);
    }
    lines.push('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB');
    return Buffer.from(`${lines.join(ending)}${ending}`);
  };

  it.for<[string, number, '\n' | '\r\n', number]>([
    ['newline endings', 1, '\n', 0.003],
    ['another mix', 2, '\n', 0.003],
    ['`\\r\\n` endings', 3, '\r\n', 0.003],
    // The rest of a burst after a frame that moved its bar may stand at the head of the next run.
    ['bars moving inside bursts', 5, '\n', 0.1],
    ['bars moving inside bursts, `\\r\\n` endings', 6, '\r\n', 0.1],
  ])('%s', async ([, seed, ending, moves]) => {
    const bytes = bursts(seed, ending, 0.2, moves);
    for (const chunks of [1 << 20, 4096]) await expectSame(bytes, { family: 'sglang', chunks });
    await expectSame(bytes, { family: 'sglang', chunks: { seed } });
  });

  it('reads a burst whose last frame moved its bar, or that a line the rules act on is glued to', async () => {
    const ranks = [0, 1, 2, 3].map((rank) => frame(rank, 1, 1, 1));
    const quiet = (n: number): string[] => Array.from({ length: n }, (_, k) => `node01:41200:41900 [0] NCCL INFO Channel ${k}/0 : 1[1] -> 2[2] via P2P/IPC`);
    const log = [
      ...start,
      ...ranks,
      ...quiet(5),
      `\r${frame(0, 1, 1, 1.2)}\r${frame(1, 1, 1, 1.3)}\r${frame(0, 2, 1, 1.4)}${quiet(1)[0]}`,
      ...quiet(5),
      `\r${frame(2, 1, 1, 1.2)}\r${frame(3, 1, 1, 1.3)}node01:41200:41900 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>`,
      ...quiet(5),
      `\r${frame(2, 1, 1, 1.5)}[2025-03-08 12:00:02 TP0] Load weight end. type=X, dtype=torch.bfloat16, avail mem=60.00 GB, mem usage=10.00 GB.`,
      ...quiet(5),
    ];
    const pushed: string[] = [];
    await watch(Buffer.from(`${log.join('\n')}\n`), { family: 'sglang', chunks: 1 << 20 }, true, pushed);
    expect(pushed.some((line) => line.includes(frame(0, 2, 1, 1.4)))).toBe(true);
    expect(pushed.some((line) => line.includes('Load weight end'))).toBe(true);
  });

  it('after a frame that moved its bar, leaves the rest of the burst unread when a line of the run after it sets the last line', async () => {
    const quiet = (from: number, n: number): string[] => Array.from({ length: n }, (_, k) => `node01:41200:41900 [0] NCCL INFO Channel ${from + k}/0 : 1[1] -> 2[2] via P2P/IPC`);
    const burst = (glued: string) => `\r${frame(0, 1, 1, 1.2)}\r${frame(1, 2, 1, 1.3)}\r${frame(2, 1, 1, 1.4)}\r${frame(3, 1, 1, 1.5)}${glued}`;
    const log = (after: string[]): Buffer =>
      Buffer.from(`${[...start, ...[0, 1, 2, 3].map((rank) => frame(rank, 1, 1, 1)), ...quiet(0, 3), burst(quiet(10, 1)[0]!), ...after, sg('12:00:05', 'Load weight end. type=X, avail mem=60.00 GB')].join('\n')}\n`);
    const cases: [string, string[], boolean][] = [
      ['quiet lines after it', quiet(20, 4), false],
      ['nothing after it', [], true],
      ['only blank lines after it', ['', ''], true],
    ];
    for (const [what, after, read] of cases) {
      const pushed: string[] = [];
      await watch(log(after), { family: 'sglang', chunks: 1 << 20 }, true, pushed);
      // The frame that moved is read either way.
      expect(pushed.some((line) => line.includes(frame(1, 2, 1, 1.3))), what).toBe(true);
      expect(pushed.some((line) => line.includes(quiet(10, 1)[0]!)), what).toBe(read);
      await expectSame(log(after), { family: 'sglang', chunks: 1 << 20 });
    }
  });

  it('leaves a burst that only moved counters unread, with the quiet line glued to it', async () => {
    // Without QuietLines.passBurst each burst line is read, and the NCCL line before it as well.
    expect(await expectSame(bursts(4, '\n', 0), { family: 'sglang', chunks: 1 << 20 })).toBeGreaterThan(0.95);
  });
});
