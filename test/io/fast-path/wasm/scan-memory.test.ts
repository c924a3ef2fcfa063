/**
 * The kernels' memory is made before its kernels, which are built the first time one would scan:
 * read buffers leased (and filled) before that are scanned by them all the same, and a chunk from
 * elsewhere is copied in and scanned there.
 */
import { describe, expect, it } from 'vitest';
import { SCRATCH_BYTES, ScanMemory } from '../../../../src/io/fast-path/wasm/scan-memory.js';

const text = Buffer.from('first line\nsecond\n\nfourth, and a longer line than the others to cross a few blocks\nlast');
const newlines = (bytes: Uint8Array, start: number, end: number): number => bytes.subarray(start, end).filter((b) => b === 0x0a).length;

describe('ScanMemory', () => {
  it('a read buffer leased and filled before any scan is scanned where it is, by kernels built on that first scan', () => {
    const memory = new ScanMemory();
    const lease = memory.leaseReadBuffers()!;
    const [buffer] = lease.buffers;
    text.copy(buffer);
    const chunk = buffer.subarray(0, text.length);
    expect(memory.holds(chunk)).toBe(true);
    for (const [start, end] of [[0, text.length], [3, 40], [11, 19], [20, 20]] as const) expect(memory.countLf(chunk, start, end)).toBe(newlines(text, start, end));
    expect(memory.place(chunk)).toBe(chunk);
    lease.release();
  });

  it('a chunk from elsewhere is not held; placed, its copy is, and scans the same', () => {
    const memory = new ScanMemory();
    expect(memory.holds(text)).toBe(false);
    const placed = memory.place(text)!;
    expect(placed.equals(text)).toBe(true);
    expect(memory.holds(placed)).toBe(true);
    expect(memory.countLf(placed, 0, placed.length)).toBe(newlines(text, 0, text.length));
    expect(memory.place(Buffer.alloc(SCRATCH_BYTES + 1))).toBeUndefined();
  });

  it('two leases at most, each its own pair of buffers in the memory, free again when released', () => {
    const memory = new ScanMemory();
    const first = memory.leaseReadBuffers()!;
    const second = memory.leaseReadBuffers()!;
    expect(memory.leaseReadBuffers()).toBeUndefined();
    const all = [...first.buffers, ...second.buffers];
    expect(new Set(all.map((b) => b.byteOffset)).size).toBe(4);
    expect(all.every((b) => b.buffer === memory.bytes.buffer)).toBe(true);
    first.release();
    expect(memory.leaseReadBuffers()).toBeDefined();
  });
});
