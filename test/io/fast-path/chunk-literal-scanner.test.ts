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

  it('picks its probe words from the text it sees, and still finds every literal', () => {
    // A long sample full of the literals' common words: the chosen words change, the answers do not.
    const noise = Array.from({ length: 4000 }, (_, i) => `line ${i} out of the memory error server_args NCCL Kill`).join('\n');
    const bytes = place(`${noise}\nthen out of memory\n`);
    const subject = scanner();
    expect(subject.nextLine(bytes, 0, bytes.length)).toBe(naive(bytes, 0, bytes.length));
    expect(naive(bytes, 0, bytes.length)).toBe(noise.length + 1);
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
