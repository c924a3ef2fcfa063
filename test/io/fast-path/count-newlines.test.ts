/**
 * countNewlines must count exactly the `\n` bytes of a range, in the kernels' memory (the SIMD
 * kernel: 64 bytes a turn, 8-bit counters emptied every 63 turns) and elsewhere: checked against
 * a naive count on random buffers, at every start alignment and around every edge of the kernel's
 * steps.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { countNewlines } from '../../../src/io/fast-path/count-newlines.js';
import { READ_BUFFER_BYTES, scanMemory } from '../../../src/io/fast-path/wasm/scan-memory.js';
import { Random } from '../../hostile/random.js';

const lease = scanMemory?.leaseReadBuffers();
afterAll(() => lease?.release());

function naive(bytes: Uint8Array, start: number, end: number): number {
  let count = 0;
  for (let at = start; at < end; at++) if (bytes[at] === 10) count++;
  return count;
}

/** `bytes` copied into the kernels' memory at `offset` of a read buffer. */
function inMemory(bytes: Buffer, offset: number): Buffer {
  const target = lease!.buffers[0];
  bytes.copy(target, offset);
  return target.subarray(offset, offset + bytes.length);
}

describe('countNewlines', () => {
  it('has the kernels on this runtime (Node 20 has WebAssembly SIMD)', () => {
    expect(scanMemory).not.toBeNull();
    expect(lease).toBeDefined();
  });

  const lengths = [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 63 * 64 - 1, 63 * 64, 63 * 64 + 1, 3 * 63 * 64 + 37, 100_000];
  it.for(lengths)('counts a range of %d bytes exactly, at every alignment, in memory and not', (length) => {
    const random = new Random(length + 1);
    for (const density of [0, 0.02, 0.5, 1]) {
      const bytes = Buffer.alloc(length + 8);
      for (let k = 0; k < bytes.length; k++) bytes[k] = random.next() < density ? 10 : random.int(256);
      for (let offset = 0; offset < 4; offset++) {
        const start = offset;
        const end = Math.min(bytes.length, start + length);
        const expected = naive(bytes, start, end);
        expect(countNewlines(bytes, start, end), `plain, density ${density}, offset ${offset}`).toBe(expected);
        const placed = inMemory(bytes, 1 + offset);
        expect(scanMemory!.holds(placed)).toBe(true);
        expect(countNewlines(placed, start, end), `in memory, density ${density}, offset ${offset}`).toBe(expected);
      }
    }
  });

  it('counts a whole read buffer of newlines (every 8-bit counter at its limit, run after run)', () => {
    const full = inMemory(Buffer.alloc(READ_BUFFER_BYTES, 10), 0);
    expect(countNewlines(full, 0, full.length)).toBe(READ_BUFFER_BYTES);
    expect(countNewlines(full, 5, full.length - 3)).toBe(READ_BUFFER_BYTES - 8);
  });

  it('does not count the bytes just past the end (which the kernel may read)', () => {
    const bytes = inMemory(Buffer.from('ab\ncd\n\n\n\n\n'), 0);
    expect(countNewlines(bytes, 0, 4)).toBe(1);
    expect(countNewlines(bytes, 3, 3)).toBe(0);
    expect(countNewlines(bytes, 4, 2)).toBe(0);
  });

  it('agrees with a naive count on random ranges of random text', () => {
    const random = new Random(20261201);
    for (let round = 0; round < 300; round++) {
      const bytes = Buffer.alloc(random.int(20_000));
      for (let k = 0; k < bytes.length; k++) bytes[k] = random.next() < 0.05 ? 10 : 0x20 + random.int(0x60);
      const start = random.int(bytes.length + 1);
      const end = start + random.int(bytes.length - start + 1);
      const placed = inMemory(bytes, random.int(64));
      expect(countNewlines(placed, start, end), `round ${round}`).toBe(naive(bytes, start, end));
    }
  });
});
