import { describe, expect, it } from 'vitest';
import { LineSplitter, type SplitLine } from '../../src/io/line-splitter.js';

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

describe('LineSplitter: lines passed without splitting (the fast path counts them)', () => {
  it('skipLines numbers the lines after them, and lastLineNo counts them', () => {
    const splitter = new LineSplitter();
    const lines: SplitLine[] = [];
    splitter.forEachLine(Buffer.from('a\n'), (line) => void lines.push(line));
    splitter.skipLines(3);
    expect(splitter.lastLineNo).toBe(4);
    expect(splitter.nextLineNo).toBe(5);
    splitter.forEachLine(Buffer.from('e\n'), (line) => void lines.push(line));
    expect(lines.map((line) => `${line.text}@${line.lineNo}`)).toEqual(['a@1', 'e@5']);
  });

  it.for<[string, boolean]>([
    ['a\n', true],
    ['a', false],
    ['a\r', false],
    ['a\rb', false],
    ['a\r\n', true],
  ])('after %j: at a line start %s', ([text, expected]) => {
    const splitter = new LineSplitter();
    splitter.forEachLine(Buffer.from(text), () => undefined);
    expect(splitter.atLineStart).toBe(expected);
  });
});

describe('LineSplitter: the line cut by a chunk, taken out (the fast path joins it to its rest)', () => {
  it('gives the bytes held across chunks and is at a line start after, the line number still to come', () => {
    const splitter = new LineSplitter();
    splitter.push(Buffer.from('one\ntw'));
    splitter.push(Buffer.from('o and'));
    expect(splitter.takeCutLine()?.toString()).toBe('two and');
    expect(splitter.atLineStart).toBe(true);
    expect(splitter.push(Buffer.from('three\n'))).toEqual([{ text: 'three', lineNo: 2, truncated: 0 }]);
    expect(splitter.takeCutLine()).toBeUndefined();
  });

  it.for<[string, string[], number?]>([
    ['a frame after a \\r on the line', ['bar 1\rbar 2']],
    ['a \\r at the very end of the chunk', ['text\r']],
    ['bytes cut by the cap', ['x'.repeat(20)], 8],
  ])('takes nothing when the line held is not plain text: %s', ([, chunks, max]) => {
    const splitter = new LineSplitter({ maxLineBytes: max });
    for (const chunk of chunks) splitter.push(Buffer.from(chunk));
    const before = splitter.pending();
    expect(splitter.takeCutLine()).toBeUndefined();
    expect(splitter.pending()).toEqual(before);
  });
});

describe('LineSplitter: \\r frames passed over by the caller (the fast path leaves idle bar frames undecoded)', () => {
  it.each([
    ['a blank end of the line', 'a\r', '\r\nx\n'],
    ['a last frame', 'a\r', 'b\nx\n'],
    ['an empty frame, then a blank end', '\r', '\r\nx\n'],
  ])('the rest of the line after %s is cut as if the splitter had cut the frames before it', (_, passed, rest) => {
    const whole = new LineSplitter();
    const wholeLines = whole.push(Buffer.from(passed + rest));
    const skipping = new LineSplitter();
    const frames = passed.split('\r').filter((frame) => frame !== '').length;
    skipping.passFrames(frames);
    // The frames passed are the ones the caller holds; the splitter gives the rest as it would have.
    expect(skipping.push(Buffer.from(rest))).toEqual(wholeLines.slice(frames));
    expect(skipping.lastLineNo).toBe(whole.lastLineNo);
  });
});

describe('LineSplitter: the rest of a line passed over by the caller (held at the head of a run of quiet lines)', () => {
  it.each([
    ['after a frame it cut', '\ra\r', 'b glued\nx\n'],
    ['after frames passed over', '', '\ra\rb glued\r\nx\n'],
  ])('%s: the next line gets the next number, and the line held counts as cut', (_, cut, rest) => {
    const whole = new LineSplitter();
    const wholeLines = whole.push(Buffer.from(cut + rest));
    const holding = new LineSplitter();
    const taken = holding.push(Buffer.from(cut));
    expect(holding.atFrameStart).toBe(true);
    holding.passRestOfLine();
    expect(holding.lastLineNo).toBe(1);
    expect(holding.atLineStart).toBe(true);
    const after = rest.slice(rest.indexOf('\n') + 1);
    // The lines after it are the whole split's last: numbered as they were.
    expect([...taken, ...holding.push(Buffer.from(after))]).toEqual([...taken, wholeLines.at(-1)]);
    expect(holding.lastLineNo).toBe(whole.lastLineNo);
  });
});
