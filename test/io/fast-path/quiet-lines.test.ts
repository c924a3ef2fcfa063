/**
 * QuietLines: which lines the watch loop may leave unread, and the assumption its timestamp
 * rule rests on. (That skipping changes no event is test/core/fast-path.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePack } from '../../../src/core/compile-pack.js';
import { guardFrame } from '../../../src/core/line-guard.js';
import type { CompiledPack, PackSource } from '../../../src/core/pack-types.js';
import { parseFrame } from '../../../src/core/parse-line.js';
import { Session } from '../../../src/core/session.js';
import type { Skippable } from '../../../src/core/skippable.js';
import { DROP, FEED, QuietLines, SKIP, type Quiet } from '../../../src/io/fast-path/quiet-lines.js';
import { quietFor } from '../../helpers/quiet-for.js';
import { analysedPack, analysis } from '../../helpers/analysed-pack.js';
import { sg, sglangHealthyStart, SGLANG_READY } from '../../helpers/log-lines.js';
import { repoRoot } from '../../helpers/run-main.js';

const packs = [analysedPack('sglang'), analysedPack('vllm')];

/** A session fed `lines` the way the watch loop feeds them, and what QuietLines says of a next line. */
function after(lines: string[], options: { packs?: CompiledPack[]; family?: string } = {}): (text: string) => Quiet {
  const session = new Session({ packs: options.packs ?? packs, family: 'family' in options ? options.family : 'sglang' });
  const quiet = quietFor(session);
  lines.forEach((line, index) => {
    session.push(line, { lineNo: index + 1 });
    quiet.noteFed(index + 1, line);
  });
  return (text) => {
    const bytes = Buffer.from(`${text}\n`);
    return quiet.classify(bytes, 0, bytes.length - 1);
  };
}

const start = sglangHealthyStart().slice(0, 5);
const last = sg('12:00:07', 'Load weight begin. avail mem=78.10 GB', 'TP0');

describe('QuietLines before a verdict', () => {
  const ask = after(start);

  it.for<[string, string, Quiet]>([
    ['a line without any literal or stamp', 'just some chatter', SKIP],
    ['a blank line', '', SKIP],
    ['a line with a rule literal', 'RuntimeError: CUDA error: an illegal memory access was encountered', FEED],
    ['a benign rule literal alone (it only silences failures)', 'node01:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC', SKIP],
    ['a traceback cue', '  File "/x.py", line 3, in f', FEED],
    ['a colour code', '\x1b[36mchatter\x1b[0m', FEED],
    ['a pasted colour code', '^[[36mchatter', FEED],
    ['a gap marker', '# [... gap in source ...]', FEED],
    ['the same prefixes and timestamp as the line just read', sg('12:00:07', 'chatter', 'TP0'), SKIP],
    ['the same timestamp under other prefixes', sg('12:00:07', 'chatter', 'TP1'), FEED],
    ['a new second', sg('12:00:08', 'chatter', 'TP0'), FEED],
    ['the same prefixes and nothing after them', sg('12:00:07', '', 'TP0'), FEED],
    ['the same prefixes, then another stamp', sg('12:00:07', 'INFO 03-08 12:00:09 [x.py:1] chatter', 'TP0'), FEED],
  ])('%s', ([, text, expected]) => {
    expect(ask(text)).toBe(expected);
  });

  it('asks core once about a line with a rule literal that it meets again, and answers the same', () => {
    const session = new Session({ packs, family: 'sglang' });
    start.forEach((line, index) => session.push(line, { lineNo: index + 1 }));
    const quiet = new QuietLines();
    const asked: string[] = [];
    const now = (): Skippable => {
      const core = session.skippable()!;
      return { ...core, quietText: (text) => (asked.push(text), core.quietText(text)) };
    };
    const nvls = Buffer.from('node01:41200:41900 [0] NCCL INFO NVLS multicast support is not available on dev 0\n');
    const port = Buffer.from('Port is already in use. dist_init_port=31000\n');
    for (let round = 0; round < 3; round++) {
      expect(quiet.classify(now(), nvls, 0, nvls.length - 1)).toBe(SKIP);
      expect(quiet.classify(now(), port, 0, port.length - 1)).toBe(FEED);
    }
    expect(asked).toEqual([nvls.toString().trim(), port.toString().trim()]);
  });

  it('reads every line until the family is known, and before the run has started', () => {
    expect(after([], { family: undefined })('just some chatter')).toBe(FEED);
    expect(after(['no family named here'], { family: undefined })('just some chatter')).toBe(FEED);
    expect(after([])('just some chatter')).toBe(FEED);
  });

  it('reads every line inside a traceback, and while a verdict waits on a timer', () => {
    expect(after([...start, 'Traceback (most recent call last):'])('    value = compute(x)')).toBe(FEED);
    // A wrapper that only says the start is dead: the verdict waits a few seconds for a cause.
    expect(after([...start, 'Killed'])('just some chatter')).toBe(FEED);
  });

  it('forgets the timestamp once the clock moved', () => {
    expect(after([...start, last])(sg('12:00:07', 'chatter', 'TP0'))).toBe(SKIP);
    expect(after([...start, last, '# [... gap in source ...]'])(sg('12:00:07', 'chatter', 'TP0'))).toBe(FEED);
    expect(after([...start, last, sg('12:00:09', 'chatter', 'TP0')])(sg('12:00:07', 'chatter', 'TP0'))).toBe(FEED);
  });

  it('reads every line with a --stall budget under a second', () => {
    const session = new Session({ packs, family: 'sglang', classifier: { stallOverrideMs: 500 } });
    const quiet = quietFor(session);
    session.push(start[0]!, { lineNo: 1 });
    expect(session.verdict).toBeUndefined();
    const bytes = Buffer.from('just some chatter');
    expect(quiet.classify(bytes, 0, bytes.length)).toBe(FEED);
  });
});

describe('QuietLines after a verdict', () => {
  it('drops quiet lines, and lines only the finished run cared about', () => {
    const ask = after([...sglangHealthyStart(), SGLANG_READY]);
    expect(ask('just some chatter')).toBe(DROP);
    expect(ask('[2025-03-08 12:00:40] INFO:     127.0.0.1:4 - "POST /generate HTTP/1.1" 200 OK')).toBe(FEED); // a new second
    expect(ask('node01:1:1 [0] NCCL INFO Init COMPLETE')).toBe(DROP);
  });

  it('still reads what can follow a verdict: a fatal failure after ready, a restart, a bar', () => {
    const ask = after([...sglangHealthyStart(), SGLANG_READY]);
    expect(ask('RuntimeError: CUDA error: an illegal memory access was encountered')).toBe(FEED);
    expect(ask("server_args=ServerArgs(model_path='x')")).toBe(FEED);
    expect(ask(' 50%|█████     | 5/10 [00:01<00:01,  5.00it/s]')).toBe(FEED);
  });
});

describe('QuietLines.nextDue: whole lines let go after a verdict', () => {
  /** Where, in `lines` joined as one chunk, the next line due starts, as a line index (lines.length: none). */
  function due(fed: string[], lines: string[], from = 0): number {
    const session = new Session({ packs, family: 'sglang' });
    const quiet = quietFor(session);
    fed.forEach((line, index) => session.push(line, { lineNo: index + 1 }));
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const starts = lines.map((_, index) => Buffer.byteLength(lines.slice(0, index).map((l) => `${l}\n`).join('')));
    const at = quiet.nextDue(bytes, starts[from]!, bytes.length, true);
    const index = starts.indexOf(at);
    return at === bytes.length ? lines.length : index;
  }
  const chatter = (n: number): string[] => Array.from({ length: n }, (_, i) => sg('12:00:40', `Decode batch. #running-req: ${i}`, 'TP0'));
  const ready = [...sglangHealthyStart(), SGLANG_READY];

  it('lets nothing go before a verdict', () => {
    expect(due(sglangHealthyStart(), chatter(5))).toBe(0);
  });

  it('after ready, goes to the next line with a fatal failure or a restart, colour codes stripped', () => {
    expect(due(ready, [...chatter(5), 'RuntimeError: CUDA error: an illegal memory access was encountered', ...chatter(2)])).toBe(5);
    expect(due(ready, [...chatter(3), "[2025-03-08 13:00:00] server_args=ServerArgs(model_path='x')", ...chatter(2)])).toBe(3);
    // A colour code inside a literal hides it from the bytes, not from the classifier.
    expect(due(ready, [...chatter(4), '\x1b[31mchatter\x1b[0m', 'Kil\x1b[0mled', '^[[1mKil^[[0mled', ...chatter(2)])).toBe(5);
    expect(due(ready, [...chatter(4), '^[[1mchatter^[[0m', '\x1b[36m(pid=1)\x1b[0m \x1b[1mOutOfMemoryError\x1b[0m', ...chatter(2)])).toBe(5);
  });

  it('after ready, lets go what only a start cares about: bars, stage markers, tracebacks, gap markers', () => {
    const quietAfterReady = [' 50%|█████     | 5/10 [00:01<00:01,  5.00it/s]', sg('12:00:41', 'Load weight begin. avail mem=70.00 GB', 'TP0'), 'Traceback (most recent call last):', '# [... gap in source ...]'];
    expect(due(ready, [...quietAfterReady, ...chatter(3)])).toBe(quietAfterReady.length + 3);
  });

  it('reads a line to keep the clock once 64 KiB went unread: the last whole line of that chunk', () => {
    const lines = chatter(1200);
    const bytes = Buffer.byteLength(lines.join('\n'));
    expect(bytes).toBeGreaterThan(64 * 1024);
    expect(due(ready, lines)).toBe(lines.length - 1);
    expect(due(ready, lines.slice(0, 100))).toBe(100);
    // Counted across chunks: after 900 lines let go, 300 more make it.
    const session = new Session({ packs, family: 'sglang' });
    ready.forEach((line, index) => session.push(line, { lineNo: index + 1 }));
    const quiet = quietFor(session);
    const first = Buffer.from(`${lines.slice(0, 900).join('\n')}\n`);
    const second = Buffer.from(`${lines.slice(900).join('\n')}\n`);
    expect(first.length).toBeLessThan(64 * 1024);
    expect(quiet.nextDue(first, 0, first.length, true)).toBe(first.length);
    expect(quiet.nextDue(second, 0, second.length, true)).toBe(second.lastIndexOf('\n', second.length - 2) + 1);
  });

  it('after ready, lets go a line with a literal that matches nothing, up to one that matches', () => {
    const nvls = 'node01:41200:41900 [0] NCCL INFO NVLS multicast support is not available on dev 0';
    const portTaken = 'ZMQ at 5555 is not available';
    expect(due(ready, [...chatter(2), nvls, nvls, ...chatter(1), portTaken, ...chatter(2)])).toBe(5);
    // Colour codes stripped, the same.
    expect(due(ready, [...chatter(2), `\x1b[36m${nvls}\x1b[0m`, `\x1b[1mZMQ at\x1b[0m 5555 is not available`, ...chatter(2)])).toBe(3);
  });

  it('after ready, asks core once about a quiet line it meets again, and every time about one that is not', () => {
    const session = new Session({ packs, family: 'sglang' });
    ready.forEach((line, index) => session.push(line, { lineNo: index + 1 }));
    const quiet = new QuietLines();
    const asked: string[] = [];
    const core = session.skippable()!;
    const now: Skippable = { ...core, quietText: (text) => (asked.push(text), core.quietText(text)) };
    const nvls = 'node01:41200:41900 [0] NCCL INFO NVLS multicast support is not available on dev 0';
    const portTaken = 'ZMQ at 5555 is not available';
    const bytes = Buffer.from(`${[nvls, 'chatter', nvls, portTaken, nvls, portTaken, 'chatter'].join('\n')}\n`);
    quiet.newChunk();
    expect(quiet.dropTo(now, bytes, 0, bytes.length)).toBe(bytes.indexOf(portTaken));
    expect(quiet.dropTo(now, bytes, bytes.indexOf(portTaken) + portTaken.length + 1, bytes.length)).toBe(bytes.lastIndexOf(portTaken));
    expect(asked).toEqual([nvls, portTaken, portTaken]);
  });

  it('tells a line core called quiet after one verdict again only after the same verdict', () => {
    // A line with the restart marker's literal that is no restart: quiet after a failure, yet a fatal failure after ready.
    const tiny = compilePack(
      [
        {
          pack: 'tiny',
          description: 'tiny',
          timing: { settle: '1s' },
          stages: [{ stage: 'launch', markers: [{ id: 'tiny/launch', pattern: '^starting server$', description: 'launch', restart: true }] }],
          ready: [{ id: 'tiny/ready', pattern: 'server is ready', description: 'ready' }],
          failures: [{ id: 'tiny/boom', pattern: 'boom', description: 'boom', cause: 'crash', message: 'boom', hint: 'none' }],
        } as PackSource,
      ],
      analysis,
    );
    const line = 'starting server went boom';
    const lines = ['starting server', 'boom', '[12:00:05] chatter', line, 'chatter', 'starting server', 'server is ready', 'chatter', line, 'chatter'];
    const session = new Session({ packs: [tiny], family: 'tiny' });
    const quiet = new QuietLines();
    const events: string[] = [];
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const due: number[] = [];
    for (let at = 0, lineNo = 1; at < bytes.length; lineNo++) {
      quiet.newChunk();
      const next = quiet.dropTo(session.skippable(), bytes, at, bytes.length);
      if (next > at) {
        lineNo += bytes.subarray(at, next).filter((byte) => byte === 10).length;
        at = next;
        if (at >= bytes.length) break;
      }
      const end = bytes.indexOf(10, at);
      due.push(lineNo);
      events.push(...session.push(bytes.toString('utf8', at, end), { lineNo }).map((event) => event.type));
      at = end + 1;
    }
    // Let go after the failure (line 4), read after ready (line 9).
    expect(events).toEqual(['stage', 'verdict', 'restart', 'stage', 'verdict', 'after-ready-failure']);
    expect(due).toEqual([1, 2, 6, 7, 9]);
  });

  it('after a failed verdict, only a restart (or a colour code) is due', () => {
    const failed = [...sglangHealthyStart().slice(0, 3), 'RuntimeError: CUDA error: an illegal memory access was encountered'];
    const session = new Session({ packs, family: 'sglang' });
    failed.forEach((line, index) => session.push(line, { lineNo: index + 1 }));
    session.tick({ idleMs: 60_000 });
    expect(session.verdict?.verdict).toBe('failed');
    const lines = [...chatter(3), 'torch.OutOfMemoryError: CUDA out of memory.', ...chatter(2), "[2025-03-08 13:00:00] server_args=ServerArgs(model_path='x')", ...chatter(2)];
    const quiet = quietFor(session);
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const restartAt = bytes.indexOf('[2025-03-08 13:00:00]');
    expect(quiet.nextDue(bytes, 0, bytes.length, true)).toBe(restartAt);
  });

  it('resumes from a later line of the same chunk', () => {
    const lines = [...chatter(2), 'Killed', ...chatter(2), 'Killed', ...chatter(2)];
    expect(due(ready, lines, 0)).toBe(2);
    expect(due(ready, lines, 3)).toBe(5);
  });

  it('keeps a partial last line for the next chunk', () => {
    const session = new Session({ packs, family: 'sglang' });
    ready.forEach((line, index) => session.push(line, { lineNo: index + 1 }));
    const bytes = Buffer.from('chatter\nmore chatter\npartial');
    // Nothing due: the whole lines are let go, never the partial one.
    expect(quietFor(session).nextDue(bytes, 0, bytes.length, true)).toBe(21);
    expect(quietFor(session).nextDue(bytes, 21, bytes.length, true)).toBe(21);
  });
});

describe('QuietLines refuses packs it cannot vouch for', () => {
  const compile = (source: Partial<PackSource>): CompiledPack =>
    compilePack([{ pack: 'tiny', ...source } as PackSource], analysis);
  const ready = [{ id: 'tiny/ready', pattern: 'server is ready', description: 'ready' }];
  const launch = [{ stage: 'launch', markers: [{ id: 'tiny/launch', pattern: 'starting server', description: 'launch' }] }];
  const askTiny = (pack: CompiledPack): Quiet => after(['starting server'], { packs: [pack], family: 'tiny' })('just some chatter');

  it('accepts a pack whose every rule has literals', () => {
    expect(askTiny(compile({ ready, stages: launch } as Partial<PackSource>))).toBe(SKIP);
  });

  it.for<[string, Partial<PackSource>]>([
    ['a rule without literals', { ready: [...ready, { id: 'tiny/any', pattern: '^\\d+$', description: 'digits' }] }],
    ['a rule that ignores case', { ready: [{ ...ready[0]!, ignore_case: true }] }],
    ['a prefix that reads a date without a time', { ready, prefixes: [{ id: 'tiny/date', pattern: '^(?<date>\\d{4}-\\d{2}-\\d{2}) ', description: 'date' }] }],
    ['a prefix whose time is not a stamp', { ready, prefixes: [{ id: 'tiny/t', pattern: '^(?<time>\\d+) ', description: 't' }] }],
    ['a prefix whose time is optional after its date', { ready, prefixes: [{ id: 'tiny/dt', pattern: '^(?<date>\\d{4}-\\d{2}-\\d{2})(?: (?<time>\\d{2}:\\d{2}:\\d{2}))? ', description: 'dt' }] }],
  ])('refuses %s', ([, source]) => {
    expect(askTiny(compile({ stages: launch, ...source } as Partial<PackSource>))).toBe(FEED);
  });
});

describe('the prefix rules read the same timestamp from the same prefixes', () => {
  const root = join(repoRoot, 'fixtures');
  const lines = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.log'))
    .sort()
    .flatMap((f) => readFileSync(join(root, f), 'utf8').split(/\r\n|\r|\n/))
    .filter((line) => !line.includes('\x1b') && !line.includes('^[['));
  const STAMP = /\d:\d\d:\d\d/;
  // What may follow the prefixes of a quiet line: real messages, and the delimiters prefix rules look for.
  const tails = [
    ...lines.filter((line, index) => index % 61 === 0 && !STAMP.test(line)),
    ...['x', '] x', ' - x', ' | x', '\tINFO a.py:1 -- x', 'INFO utils.py:1: x', 'INFO:     x', '(APIServer pid=1) x', '[rank1]: x', '│ x', '.123 x', ',5 x', '  x'],
  ].filter((tail) => /[\x21-\x7e]/.test(tail));

  it.for(['sglang', 'vllm'] as const)('%s: a line that starts with the prefixes of a timed line, then has text but no stamp, reads its timestamp or none', (family) => {
    const pack = analysedPack(family);
    const seen = new Set<string>();
    let checked = 0;
    for (const raw of lines) {
      const text = guardFrame(raw);
      const frame = parseFrame(text, pack.prefixes);
      if (!frame.time) continue;
      const prefix = text.slice(0, text.length - frame.body.length);
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      const want = JSON.stringify(frame.time);
      for (const tail of tails) {
        const time = parseFrame(guardFrame(prefix + tail), pack.prefixes).time;
        if (time !== undefined && JSON.stringify(time) !== want) expect(JSON.stringify(time), `${prefix}${tail}`).toBe(want);
        checked++;
      }
    }
    expect(seen.size).toBeGreaterThan(500);
    expect(checked).toBeGreaterThan(100_000);
  });
});
