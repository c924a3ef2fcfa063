/** QuietBytes keeps lines by their bytes, per pack: found again byte for byte only, forgotten for another pack, a bounded few. */
import { describe, expect, it } from 'vitest';
import { QuietBytes } from '../../../src/io/fast-path/quiet-bytes.js';

const line = (text: string): Buffer => Buffer.from(`xx${text}\nyy`);
const span = (buffer: Buffer): [Buffer, number, number] => [buffer, 2, buffer.indexOf(10)];

describe('QuietBytes', () => {
  const pack = {};
  const nvls = 'node01:41205:41905 [5] NCCL INFO NVLS multicast support is not available on dev 0';

  it('finds a kept line again wherever it lies, and no other', () => {
    const quiet = new QuietBytes();
    quiet.add(pack, ...span(line(nvls)));
    expect(quiet.has(pack, ...span(line(nvls)))).toBe(true);
    const elsewhere = Buffer.from(`a long way in: ${nvls}\n`);
    expect(quiet.has(pack, elsewhere, 15, elsewhere.length - 1)).toBe(true);
    expect(quiet.has(pack, ...span(line(nvls.replace('dev 0', 'dev 1'))))).toBe(false);
    expect(quiet.has(pack, ...span(line(`${nvls} `)))).toBe(false);
    expect(quiet.has(pack, ...span(line(nvls.slice(0, -1))))).toBe(false);
  });

  it('forgets its lines for another pack, and keeps a bounded few', () => {
    const quiet = new QuietBytes();
    quiet.add(pack, ...span(line(nvls)));
    const other = {};
    expect(quiet.has(other, ...span(line(nvls)))).toBe(false);
    quiet.add(other, ...span(line('chatter')));
    expect(quiet.has(pack, ...span(line(nvls)))).toBe(false);
    for (let k = 0; k < 1000; k++) quiet.add(other, ...span(line(`chatter ${k}`)));
    expect(quiet.has(other, ...span(line('chatter 999')))).toBe(true);
    const kept = Array.from({ length: 1000 }, (_, k) => quiet.has(other, ...span(line(`chatter ${k}`)))).filter(Boolean).length;
    expect(kept).toBeGreaterThan(16);
    expect(kept).toBeLessThanOrEqual(64);
  });

  it('keeps a line in memory of its own: the chunk it came from may be overwritten', () => {
    const quiet = new QuietBytes();
    const chunk = line(nvls);
    quiet.add(pack, ...span(chunk));
    chunk.fill(0x20, 2, 10);
    expect(quiet.has(pack, ...span(line(nvls)))).toBe(true);
  });

  it('does not keep long lines', () => {
    const quiet = new QuietBytes();
    const long = 'x'.repeat(600);
    quiet.add(pack, ...span(line(long)));
    expect(quiet.has(pack, ...span(line(long)))).toBe(false);
  });
});

describe('QuietBytes in a flood of a few shapes', () => {
  it('keeps each of a few dozen lines that come back in turn, whatever slots their hashes pick', () => {
    const quiet = new QuietBytes();
    const pack = {};
    const shapes = Array.from({ length: 24 }, (_, k) => line(`node01:41200:41900 [${k % 8}] NCCL INFO shape ${k}`));
    for (let round = 0; round < 3; round++) for (const shape of shapes) if (!quiet.has(pack, ...span(shape))) quiet.add(pack, ...span(shape));
    expect(shapes.filter((shape) => quiet.has(pack, ...span(shape))).length).toBe(shapes.length);
  });
});
