/**
 * The byte scanner must find every literal at every offset and alignment (it probes only every
 * second position), and every clock stamp: checked against a naive search on random text.
 */
import { describe, expect, it } from 'vitest';
import { ByteLiteralScanner, FIRST_SAMPLE_AFTER, type ByteLiteral } from '../../../src/io/fast-path/byte-literal-scanner.js';
import { randomFloats as rng } from '../../hostile/random.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
/** The scanner's probe table, which a retune makes anew. */
const probeTable = (scanner: ByteLiteralScanner): Uint8Array => (scanner as unknown as { table: Uint8Array }).table;

/** The reference: which groups occur in text[start, end), and where the last `\d:\d\d:\d\d` ends. */
function naive(literals: readonly ByteLiteral[], text: Buffer, start: number, end: number): { mask: number; stampEnd: number } {
  const slice = text.subarray(start, end);
  let mask = 0;
  for (const { bytes: literal, mask: bit } of literals) if (slice.indexOf(literal) !== -1) mask |= bit;
  let stampEnd = -1;
  const latin = slice.toString('latin1');
  for (let at = 0; at + 7 <= latin.length; at++) if (/^\d:\d\d:\d\d/.test(latin.slice(at, at + 7))) stampEnd = at + 7;
  return { mask, stampEnd };
}

describe('ByteLiteralScanner', () => {
  const literals: ByteLiteral[] = [
    { bytes: bytes('%|'), mask: 1 },
    { bytes: bytes('NCCL error'), mask: 2 },
    { bytes: bytes('abc'), mask: 4 },
    { bytes: bytes('\x1b'), mask: 8 },
    { bytes: Buffer.from('É fin', 'utf8'), mask: 16 },
    { bytes: bytes('ab'), mask: 32 },
  ];
  const scanner = new ByteLiteralScanner(literals);

  it.for<[string, string, number, number]>([
    ['a 2-byte literal at an even offset', '%|xx', 1, -1],
    ['a 2-byte literal at an odd offset', 'x%|x', 1, -1],
    ['a 2-byte literal at the very end', 'xx%|', 1, -1],
    ['a 2-byte literal that is the whole range', '%|', 1, -1],
    ['a 1-byte literal first, last, alone', '\x1bx', 8, -1],
    ['a 1-byte literal last at an odd length', 'xx\x1b', 8, -1],
    ['a 1-byte literal alone', '\x1b', 8, -1],
    ['a long literal', 'a NCCL error here', 2, -1],
    ['overlapping literals', 'xabc', 36, -1],
    ['no literal', 'nothing to see', 0, -1],
    ['a stamp', '[2025-03-08 12:29:33 TP0] x', 0, 20],
    ['the last of two stamps', '[12:00:00] at 1:02:03', 0, 21],
    ['overlapping stamps', '1:23:45:67', 0, 10],
    ['a stamp at the very start and end', '1:23:45', 0, 7],
    ['no stamp in a port or a ratio', '10.0.0.1:12345 3:4:5 12:3:45', 0, -1],
  ])('%s', ([, text, mask, stampEnd]) => {
    const line = bytes(`\n${text}\n`);
    expect(scanner.scan(line, 1, line.length - 1)).toBe(mask);
    expect(scanner.stampEnd).toBe(stampEnd);
  });

  it('finds UTF-8 literals in UTF-8 text', () => {
    const line = Buffer.from('voilà, É fin.', 'utf8');
    expect(scanner.scan(line, 0, line.length)).toBe(16);
  });

  it('stops at the first literal that meets stopAt', () => {
    const line = bytes('abc then 12:00:00 and NCCL error');
    expect(scanner.scan(line, 0, line.length, 4) & 4).toBe(4);
    expect(scanner.scan(line, 0, line.length, 0)).toBe(4 | 32 | 2);
    expect(scanner.stampEnd).toBe(17);
  });

  it('agrees with a naive search on random text, at every offset, through retuning', () => {
    const random = rng(7);
    const alphabet = 'abcNCL erro%|:0123456789\x1b \xc3\x89fin';
    const tuned = new ByteLiteralScanner(literals);
    const tableBefore = probeTable(tuned);
    // Past the first sample (FIRST_SAMPLE_AFTER lines, then SAMPLE_LINES), and 3,000 lines on.
    for (let round = 0; round < FIRST_SAMPLE_AFTER + 256 + 3000; round++) {
      let text = '';
      const length = Math.floor(random() * 60);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
      if (random() < 0.3) text = text.slice(0, 10) + ['NCCL error', '12:34:56', '%|', 'É fin'][round % 4] + text.slice(10);
      const line = Buffer.concat([bytes('::'), Buffer.from(text, 'latin1'), bytes('::')]);
      const [start, end] = [2, line.length - 2];
      const want = naive(literals, line, start, end);
      const mask = tuned.scan(line, start, end);
      if (mask !== want.mask || tuned.stampEnd !== want.stampEnd) {
        expect(mask, text).toBe(want.mask);
        expect(tuned.stampEnd, text).toBe(want.stampEnd);
      }
    }
    // It did retune: the probe table was rebuilt from the sample.
    expect(probeTable(tuned)).not.toBe(tableBefore);
  });

  it('rejects an empty literal', () => {
    expect(() => new ByteLiteralScanner([{ bytes: new Uint8Array(0), mask: 1 }])).toThrow(RangeError);
  });
});
