/**
 * ChunkLiteralScanner must find the first line holding any literal, whatever the literal's length,
 * alignment in memory and place in the line, and however often it is asked again further on:
 * checked against a naive line-by-line search on random text. Both ways it searches: in the
 * kernels' memory (the find_block kernel) and in any other buffer (JavaScript).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ChunkLiteralScanner } from '../../../src/io/fast-path/chunk-literal-scanner.js';
import { scanMemory } from '../../../src/io/fast-path/wasm/scan-memory.js';
import { Random } from '../../hostile/random.js';

const lease = scanMemory?.leaseReadBuffers();
afterAll(() => lease?.release());
type Where = 'plain' | 'kernels';

const LITERALS = ['NCCL error', 'Killed', 'Xid ', '\x1b', '^[[', 'server_args=ServerArgs(', 'out of memory', 'É fin', 'aaaaaaa'];
const scanner = (): ChunkLiteralScanner => new ChunkLiteralScanner(LITERALS.map((text) => Buffer.from(text)));

/** Start of the first line of `bytes[start, end)` that holds a literal whole inside the range, or -1. */
function naive(bytes: Buffer, start: number, end: number): number {
  let at = start;
  while (at < end) {
    const lf = bytes.indexOf(10, at);
    const lineEnd = lf === -1 || lf >= end ? end : lf;
    const line = bytes.subarray(at, lineEnd);
    if (LITERALS.some((literal) => line.includes(Buffer.from(literal)))) return at;
    at = lineEnd + 1;
  }
  return -1;
}

/**
 * `text` placed at byte offset `offset` of a larger buffer, so its words sit at every alignment:
 * a buffer of its own, or a read buffer of the kernels' memory (after bytes that hold every
 * literal, which must not be found).
 */
function placed(text: string | Buffer, offset: number, where: Where): Buffer {
  const bytes = Buffer.from(text);
  if (where === 'kernels') {
    const target = lease!.buffers[1];
    target.fill(Buffer.from(LITERALS.join('')));
    bytes.copy(target, offset);
    expect(scanMemory!.holds(target)).toBe(true);
    return target.subarray(offset, offset + bytes.length);
  }
  const backing = Buffer.alloc(bytes.length + offset + 8);
  bytes.copy(backing, offset);
  return backing.subarray(offset, offset + bytes.length);
}

function ascii(random: Random, length: number): string {
  let text = '';
  for (let k = 0; k < length; k++) text += String.fromCharCode(0x20 + random.int(0x5f));
  return text;
}

describe.for(['plain', 'kernels'] as const)('ChunkLiteralScanner, a chunk in %s memory', (memory) => {
  const place = (text: string | Buffer, offset = 0): Buffer => placed(text, offset, memory);
  it.for(LITERALS)('finds %j at every offset in a line and every alignment', (literal) => {
    for (let offset = 0; offset < 4; offset++) {
      for (let before = 0; before < 9; before++) {
        const text = `chatter line\n${'x'.repeat(before)}${literal}${'y'.repeat(before % 3)}\nafter\n`;
        const bytes = place(text, offset);
        expect(scanner().nextLine(bytes, 0, bytes.length), `offset ${offset}, ${before} bytes before`).toBe(13);
      }
    }
  });

  it('does not find a literal cut by the end of the range, nor one only partly in it', () => {
    const bytes = place('quiet\nsome NCCL error\n');
    expect(scanner().nextLine(bytes, 0, bytes.length - 3)).toBe(-1);
    expect(scanner().nextLine(bytes, 12, bytes.length)).toBe(-1);
  });

  it('answers the line at `start` when the literal is on it', () => {
    const bytes = place('abc\nKilled\n');
    expect(scanner().nextLine(bytes, 4, bytes.length)).toBe(4);
  });

  it('agrees with a naive search when asked again and again through random text', () => {
    const random = new Random(20261129);
    const words = ['NCCL', 'error', 'Kill', 'ed', 'Xid', ' ', 'out of', ' memory', '\x1b', '^[', '[', 'aaaa', 'aaa', 'É', ' fin', 'server_args=', 'ServerArgs('];
    for (let round = 0; round < 200; round++) {
      const lines: string[] = [];
      for (let n = random.int(40); n >= 0; n--) {
        let line = '';
        for (let k = random.int(12); k >= 0; k--) line += random.next() < 0.3 ? words[random.int(words.length)] : ascii(random, random.int(8));
        lines.push(line);
      }
      const bytes = place(lines.join('\n'), random.int(4));
      const subject = scanner();
      let start = 0;
      for (;;) {
        const expected = naive(bytes, start, bytes.length);
        expect(subject.nextLine(bytes, start, bytes.length), `round ${round} from ${start}`).toBe(expected);
        if (expected === -1) break;
        const lf = bytes.indexOf(10, expected);
        if (lf === -1) break;
        // Sometimes skip further on, as a caller does past lines it read.
        start = lf + 1 + (random.next() < 0.2 ? Math.max(0, bytes.indexOf(10, lf + 1) - lf) : 0);
        if (start >= bytes.length) break;
      }
    }
  });

  it('searches a reused buffer afresh once told to forget', () => {
    const subject = scanner();
    const bytes = place('quiet line\nanother quiet\nKilled here\n');
    expect(subject.nextLine(bytes, 0, bytes.length)).toBe(25);
    Buffer.from('Killed at once\nquiet\nquiet line here\n').copy(bytes);
    subject.forget();
    expect(subject.nextLine(bytes, 0, bytes.length)).toBe(0);
  });

  it('passes over the lines `pass` accepts where it can, and asks it afresh at every search', () => {
    // Bars redrawn on lines of their own hold a literal on each, and the caller would pass them over.
    const bytes = place('quiet\nbar Killed 1/9\nquiet\nbar Killed 2/9\nthe server Killed\nquiet\n');
    const subject = scanner();
    const accepted: string[] = [];
    const bars = (chunk: Uint8Array, start: number, end: number): number => {
      const line = Buffer.from(chunk.subarray(start, end)).toString();
      accepted.push(line);
      return line.startsWith('bar ') ? end + 1 : -1;
    };
    const first = subject.nextLine(bytes, 0, bytes.length, bars);
    if (memory === 'kernels') {
      expect(subject.passedLines).toBe(true);
      expect(first).toBe(bytes.indexOf('the server'));
      expect(accepted).toEqual(['bar Killed 1/9', 'bar Killed 2/9', 'the server Killed']);
    } else {
      // Elsewhere the caller passes them: the first line with a literal is found like any other.
      expect(subject.passedLines).toBe(false);
      expect(first).toBe(bytes.indexOf('bar Killed 1/9'));
    }
    // What `pass` accepts changes as the caller reads lines: the same search, asked again, asks again.
    expect(subject.nextLine(bytes, 0, bytes.length, () => -1)).toBe(bytes.indexOf('bar Killed 1/9'));
    expect(subject.nextLine(bytes, 0, bytes.length)).toBe(bytes.indexOf('bar Killed 1/9'));
    if (memory === 'kernels') {
      // `pass` may pass more than its line: the search goes on where it says.
      const pastBoth = (chunk: Uint8Array, start: number, end: number): number => (Buffer.from(chunk.subarray(start, end)).toString() === 'bar Killed 1/9' ? bytes.indexOf('the server') : -1);
      expect(subject.nextLine(bytes, 0, bytes.length, pastBoth)).toBe(bytes.indexOf('the server'));
    }
  });

  it('picks its probe words from the text it sees, and still finds every literal', () => {
    // A long sample full of the literals' common words: the chosen words change, the answers do not.
    const noise = Array.from({ length: 4000 }, (_, i) => `line ${i} out of the memory error server_args NCCL Kill`).join('\n');
    const bytes = place(`${noise}\nthen out of memory\n`);
    const subject = scanner();
    expect(subject.nextLine(bytes, 0, bytes.length)).toBe(naive(bytes, 0, bytes.length));
    expect(naive(bytes, 0, bytes.length)).toBe(noise.length + 1);
  });

  describe('with stamps', () => {
    const stamped = (): ChunkLiteralScanner => new ChunkLiteralScanner([Buffer.from('Killed')], { stamps: true });
    const STAMP = /\d:\d\d:\d\d/;
    const naiveStamp = (bytes: Buffer, start: number): number => {
      let at = start;
      for (const line of bytes.toString('latin1', start).split('\n')) {
        if (STAMP.test(line) || line.includes('Killed')) return at;
        at += line.length + 1;
      }
      return -1;
    };

    it.for(['1:23:45', '12:34:56', '[2025-03-08 12:00:01 TP0]', 'x 9:59:59', '1:23:45:67'])('finds the stamp in %j at every offset and alignment', (stamp) => {
      for (let offset = 0; offset < 4; offset++) {
        for (let before = 0; before < 9; before++) {
          const bytes = place(`chatter 12:3\n${'x'.repeat(before)}${stamp}${'y'.repeat(before % 3)}\nafter\n`, offset);
          expect(stamped().nextLine(bytes, 0, bytes.length), `offset ${offset}, ${before} bytes before`).toBe(13);
        }
      }
    });

    it('passes over what only looks like a stamp word by word (NCCL line prefixes, ports, ratios)', () => {
      const near = ['node01:41200:41900 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC', 'eth0:10.0.0.2<0> 1:2:3 12:345:6 1:23:4 :12: 12:3', 'NCCL INFO CL I  INF :419 01:4 dd:d'];
      for (let offset = 0; offset < 4; offset++) {
        const bytes = place(`${near.join('\n')}\n`, offset);
        expect(stamped().nextLine(bytes, 0, bytes.length), `offset ${offset}`).toBe(-1);
      }
    });

    it('agrees with a naive search through random digits and colons', () => {
      const random = new Random(20261201);
      const pieces = [':', '0', '1', '9', '12', ':34', '5:', 'node01:412', 'Kill', 'ed', ' ', '\t', 'a'];
      for (let round = 0; round < 300; round++) {
        const lines: string[] = [];
        for (let n = random.int(30); n >= 0; n--) {
          let line = '';
          for (let k = random.int(16); k >= 0; k--) line += pieces[random.int(pieces.length)];
          lines.push(line);
        }
        const bytes = place(lines.join('\n'), random.int(4));
        const subject = stamped();
        for (let start = 0; start < bytes.length; ) {
          const expected = naiveStamp(bytes, start);
          expect(subject.nextLine(bytes, start, bytes.length), `round ${round} from ${start}`).toBe(expected);
          if (expected === -1) break;
          const lf = bytes.indexOf(10, expected);
          if (lf === -1) break;
          start = lf + 1;
        }
      }
    });
  });

  it('refuses an empty literal', () => {
    expect(() => new ChunkLiteralScanner([new Uint8Array(0)])).toThrow(RangeError);
  });
});

describe('ChunkLiteralScanner: the kernels find what JavaScript finds', () => {
  // Twelve short literals share the eight Teddy buckets; stamps are found as well.
  const SHORT = ['%|', 'Xid ', 'EL0004', 'SIGBUS', '[Gloo]', 'Killed', "': -9}", '\x1b', '^[[', '\r', '# [', 'é'];
  const LONG = ['server_args=ServerArgs(', 'out of memory', 'NCCL error', 'Traceback (most recent call last)'];
  const WORDS = [...SHORT, ...LONG, '12:34:56', '1:2', ':34:', 'Kill', 'Gloo', 'EL000', 'NCCL', 'memory', ' ', '\n', '\n', '\n'];

  it('on random text with stamps, at random offsets in the memory, asked again and again', () => {
    const random = new Random(20261202);
    const literals = [...SHORT, ...LONG].map((text) => Buffer.from(text));
    for (let round = 0; round < 300; round++) {
      let text = '';
      for (let k = random.int(400); k >= 0; k--) text += random.next() < 0.15 ? random.pick(WORDS) : ascii(random, random.int(6));
      const plainBytes = placed(text, random.int(4), 'plain');
      const memoryBytes = placed(text, random.int(64), 'kernels');
      const plain = new ChunkLiteralScanner(literals, { stamps: true });
      const kernels = new ChunkLiteralScanner(literals, { stamps: true });
      for (let start = 0; start < plainBytes.length; ) {
        const expected = plain.nextLine(plainBytes, start, plainBytes.length);
        expect(kernels.nextLine(memoryBytes, start, memoryBytes.length), `round ${round} from ${start}`).toBe(expected);
        if (expected === -1) break;
        const lf = plainBytes.indexOf(10, expected);
        if (lf === -1) break;
        start = lf + 1;
      }
    }
  });
});
