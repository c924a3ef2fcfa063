import { describe, expect, it } from 'vitest';
import { DROP, FEED, LineSplitter, SKIP, type Quiet, type SplitLine } from '../../src/io/line-splitter.js';

function split(chunks: (string | Buffer)[], maxLineBytes?: number): { lines: SplitLine[]; splitter: LineSplitter } {
  const splitter = new LineSplitter(maxLineBytes === undefined ? {} : { maxLineBytes });
  const lines: SplitLine[] = [];
  for (const chunk of chunks) lines.push(...splitter.push(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk));
  lines.push(...splitter.end());
  return { lines, splitter };
}

/** `text@lineNo`, compact enough to read a whole table row at a glance. */
function brief(lines: SplitLine[]): string[] {
  return lines.map((l) => `${l.text}@${l.lineNo}`);
}

describe('LineSplitter terminators', () => {
  it.for<[string, (string | Buffer)[], string[]]>([
    ['\\n', ['a\nb\n'], ['a@1', 'b@2']],
    ['\\r\\n is one terminator', ['a\r\nb\r\n'], ['a@1', 'b@2']],
    ['lone \\r frames share the physical line number', ['a\rb\rc\nd\n'], ['a@1', 'b@1', 'c@1', 'd@2']],
    ['tqdm frames led by \\r', ['\r 10%\r 20%\r100%\nnext\n'], [' 10%@1', ' 20%@1', '100%@1', 'next@2']],
    ['blank \\n lines are lines', ['a\n\n\nb\n'], ['a@1', '@2', '@3', 'b@4']],
    ['blank \\r\\n lines are lines', ['a\r\n\r\nb\r\n'], ['a@1', '@2', 'b@3']],
    ['no empty frame between \\r and \\r\\n', ['a\r\r\nb\n'], ['a@1', 'b@2']],
    ['no empty frame between \\r and \\r', ['a\r\rb\n'], ['a@1', 'b@1']],
    ['\\r\\n split across chunks', ['a\r', '\nb\n'], ['a@1', 'b@2']],
    ['blank \\r\\n line split across chunks', ['x\n\r', '\ny\n'], ['x@1', '@2', 'y@3']],
    ['\\r at a chunk end followed by text is a lone \\r', ['a\r', 'b\n'], ['a@1', 'b@1']],
    ['\\r, \\r, \\n in three chunks', ['a\r', '\r', '\n', 'b\n'], ['a@1', 'b@2']],
    ['a line spanning chunks', ['ab', 'c', 'd\ne'], ['abcd@1', 'e@2']],
    ['final unterminated line is flushed by end()', ['a\nlast'], ['a@1', 'last@2']],
    ['trailing lone \\r adds nothing at end()', ['a\r'], ['a@1']],
    ['empty chunks are harmless', ['', 'a\r', '', '\n', ''], ['a@1']],
    ['NUL passes through', ['a\0b\n'], ['a\0b@1']],
  ])('%s', ([, chunks, expected]) => {
    expect(brief(split(chunks).lines)).toEqual(expected);
  });

  it('matches a one-chunk split whatever the chunk boundaries', () => {
    const text = 'one\r\ntwo\rthree\r\r\nfour\n\nfive\r\n\r\nsix\rseven';
    const whole = brief(split([text]).lines);
    for (let size = 1; size <= 7; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(brief(split(chunks).lines), `chunk size ${size}`).toEqual(whole);
    }
  });

  it('copies a pending partial line, so callers may reuse their buffer', () => {
    const splitter = new LineSplitter();
    const reused = Buffer.from('abc');
    splitter.push(reused);
    reused.fill('z');
    expect(splitter.push(Buffer.from('\n'))).toEqual([{ text: 'abc', lineNo: 1, truncated: 0 }]);
  });
});

describe('LineSplitter UTF-8', () => {
  const euro = Buffer.from('€', 'utf8'); // e2 82 ac

  it.for([1, 2])('decodes a 3-byte character split after byte %i', (cut) => {
    const { lines } = split([Buffer.concat([Buffer.from('x'), euro.subarray(0, cut)]), Buffer.concat([euro.subarray(cut), Buffer.from('y\n')])]);
    expect(lines).toEqual([{ text: 'x€y', lineNo: 1, truncated: 0 }]);
  });

  it('decodes a character split over three chunks', () => {
    const { lines } = split([euro.subarray(0, 1), euro.subarray(1, 2), Buffer.concat([euro.subarray(2), Buffer.from('\n')])]);
    expect(lines.map((l) => l.text)).toEqual(['€']);
  });

  it.for<[string, number[], string]>([
    ['invalid bytes', [0x61, 0xff, 0xfe, 0x62, 0x0a], 'a\uFFFD\uFFFDb'],
    ['a truncated sequence before the newline', [0x61, 0xe2, 0x82, 0x0a], 'a\uFFFD'],
    ['a lone continuation byte', [0x80, 0x0a], '\uFFFD'],
  ])('replaces %s without throwing', ([, bytes, text]) => {
    expect(split([Buffer.from(bytes)]).lines.map((l) => l.text)).toEqual([text]);
  });
});

describe('LineSplitter length cap', () => {
  it('keeps the first maxLineBytes bytes and counts the rest', () => {
    const { lines, splitter } = split(['abcdefghijklmnop\nxy\n'], 10);
    expect(lines).toEqual([
      { text: 'abcdefghij', lineNo: 1, truncated: 6 },
      { text: 'xy', lineNo: 2, truncated: 0 },
    ]);
    expect(splitter.truncatedBytes).toBe(6);
  });

  it.for<[string, string, number, string, number]>([
    ['inside one chunk', 'ab€cd\n', 4, 'ab', 5],
    ['exactly at a character end', 'ab€cd\n', 5, 'ab€', 2],
    ['a 4-byte character', 'a😀b\n', 3, 'a', 5],
  ])('cuts on a UTF-8 boundary: %s', ([, text, max, kept, truncated]) => {
    const { lines } = split([Buffer.from(text, 'utf8')], max);
    expect(lines).toEqual([{ text: kept, lineNo: 1, truncated }]);
  });

  it('bounds a multi-megabyte line fed in 64 KiB chunks', () => {
    const lineBytes = 5 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'é'); // 2-byte characters, so the cap must cut on a boundary
    const splitter = new LineSplitter({ maxLineBytes: 100_001 });
    const lines: SplitLine[] = [];
    for (let fed = 0; fed < lineBytes; fed += chunk.length) lines.push(...splitter.push(chunk));
    expect(lines).toEqual([]);
    lines.push(...splitter.push(Buffer.from('\r\nnext\n')), ...splitter.end());
    expect(lines).toHaveLength(2);
    expect(lines[0]!.text).toBe('é'.repeat(50_000));
    expect(lines[0]!.truncated).toBe(lineBytes - 100_000);
    expect(lines[1]).toEqual({ text: 'next', lineNo: 2, truncated: 0 });
    expect(splitter.truncatedBytes).toBe(lineBytes - 100_000);
  });

  it('caps an unterminated line flushed by end() and keeps a running total', () => {
    const splitter = new LineSplitter({ maxLineBytes: 4 });
    splitter.push(Buffer.from('123456\n'));
    splitter.push(Buffer.from('abc'));
    splitter.push(Buffer.from('defgh'));
    expect(splitter.end()).toEqual([{ text: 'abcd', lineNo: 2, truncated: 4 }]);
    expect(splitter.truncatedBytes).toBe(6);
  });

  it.for([0, -1, 1.5, Number.NaN])('rejects maxLineBytes %s', (max) => {
    expect(() => new LineSplitter({ maxLineBytes: max })).toThrow(RangeError);
  });
});

describe('LineSplitter.forEachLine with quiet lines', () => {
  /** Lines whose text starts with s are SKIP, d are DROP, the rest FEED; b (blank message) reads as nothing. */
  function run(chunks: string[]): { read: string[]; asked: string[]; splitter: LineSplitter } {
    const splitter = new LineSplitter();
    const read: string[] = [];
    const asked: string[] = [];
    const quiet = (chunk: Buffer, start: number, end: number): Quiet => {
      const text = chunk.toString('latin1', start, end);
      asked.push(text);
      return text.startsWith('s') ? SKIP : text.startsWith('d') ? DROP : FEED;
    };
    const emit = (line: SplitLine): boolean => {
      read.push(`${line.text}@${line.lineNo}`);
      return !line.text.endsWith('b');
    };
    for (const chunk of chunks) splitter.forEachLine(Buffer.from(chunk, 'latin1'), { emit, quiet });
    for (const line of splitter.end()) emit(line);
    return { read, asked, splitter };
  }

  it.for<[string, string[], string[], number]>([
    ['a run of SKIP lines is read by its last line, before the next fed line', ['a\ns1\ns2\ns3\nb\n'], ['a@1', 's3@4', 'b@5'], 2],
    ['DROP lines are never read', ['a\nd1\nd2\nc\n'], ['a@1', 'c@4'], 2],
    ['a run is read at the end of its chunk', ['s1\ns2\n', 's3\nc\n'], ['s2@2', 's3@3', 'c@4'], 1],
    ['a blank last line hands over to the one before it', ['s1\ns2\ns3b\nc\n'], ['s3b@3', 's2@2', 'c@4'], 1],
    ['...and further back while they are blank', ['s1\ns2b\ns3b\nc\n'], ['s3b@3', 's2b@2', 's1@1', 'c@4'], 0],
    ['a line spanning chunks is not asked about', ['a\ns', '1\nc\n'], ['a@1', 's1@2', 'c@3'], 0],
    ['\\r frames are not asked about', ['s1\rs2\ns3\n'], ['s1@1', 's2@1', 's3@2'], 0],
    ['\\r\\n lines are not asked about', ['s1\r\ns2\n'], ['s1@1', 's2@2'], 0],
  ])('%s', ([, chunks, read, unread]) => {
    const result = run(chunks);
    expect(result.read).toEqual(read);
    expect(result.splitter.unreadLines).toBe(unread);
  });

  it('asks about each line only when the lines before it were handled', () => {
    const { asked } = run(['a\ns1\nd1\nc\n']);
    expect(asked).toEqual(['a', 's1', 'd1', 'c']);
  });

  it('counts the last line handled, read or not', () => {
    expect(run(['a\nd1\nd2\n']).splitter.lastLineNo).toBe(3);
    expect(run(['a\ns1\ns2\n']).splitter.lastLineNo).toBe(3);
  });

  it('reads exactly what push reads when nothing is quiet', () => {
    const text = 'one\r\ntwo\rthree\r\r\nfour\n\nfive\r\n\r\nsix\rseven';
    const pushed = split([text]).lines;
    const splitter = new LineSplitter();
    const lines: SplitLine[] = [];
    splitter.forEachLine(Buffer.from(text, 'latin1'), { emit: (line) => void lines.push(line), quiet: () => FEED });
    lines.push(...splitter.end());
    expect(lines).toEqual(pushed);
  });
});

describe('LineSplitter.forEachLine with lines let go whole (nextDue)', () => {
  /** nextDue lets go every line up to the next one that starts with `!` (or the end of what is whole). */
  function run(chunks: string[]): { read: string[]; asks: number; firsts: number; splitter: LineSplitter } {
    const splitter = new LineSplitter();
    const read: string[] = [];
    let asks = 0;
    let firsts = 0;
    const nextDue = (chunk: Buffer, start: number, end: number, first: boolean): number => {
      asks++;
      if (first) firsts++;
      const text = chunk.toString('latin1', 0, end);
      const hit = text.indexOf('\n!', start - 1);
      if (start < end && chunk[start] === 0x21) return start;
      if (hit !== -1) return hit + 1;
      return text.lastIndexOf('\n') + 1 > start ? text.lastIndexOf('\n') + 1 : start;
    };
    const emit = (line: SplitLine): void => void read.push(`${line.text}@${line.lineNo}`);
    for (const chunk of chunks) splitter.forEachLine(Buffer.from(chunk, 'latin1'), { emit, nextDue });
    for (const line of splitter.end()) emit(line);
    return { read, asks, firsts, splitter };
  }

  it.for<[string, string[], string[], number]>([
    ['lines before a due one are let go and counted', ['a\nb\n!c\nd\n'], ['!c@3'], 3],
    ['\\r frames and \\r\\n endings inside let-go lines count as one line each', ['a\rb\r\nc\n!d\n'], ['!d@3'], 2],
    ['a partial last line is kept and read whole with the next chunk', ['a\nb\nc', 'c\n!d\n'], ['cc@3', '!d@4'], 2],
    ['a line spanning chunks is read, then letting go goes on', ['a\nb', 'b\nc\n!d\n'], ['bb@2', '!d@4'], 2],
    ['nothing due: every whole line goes', ['a\nb\n', 'c\n'], [], 3],
    ['an unterminated last line is flushed at the end', ['a\nb'], ['b@2'], 1],
  ])('%s', ([, chunks, read, unread]) => {
    const result = run(chunks);
    expect(result.read).toEqual(read);
    expect(result.splitter.unreadLines).toBe(unread);
    expect(result.splitter.lastLineNo).toBe(read.length + unread);
  });

  it('says which question is the first about each chunk', () => {
    const result = run(['a\n!b\nc\n', '!d\ne\n']);
    expect(result.firsts).toBe(2);
    expect(result.asks).toBeGreaterThan(2);
  });
});
