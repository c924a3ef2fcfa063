/**
 * ShortLiteralSearch: each short literal is found where it is, searched either way (pairs for
 * the kernel, indexOf elsewhere), and the Teddy buckets are shared so that common bytes do not
 * become candidates (a 1-byte literal, any second byte, sharing a bucket with `Xid ` once made
 * every `]` one: every line of a log).
 */
import { describe, expect, it } from 'vitest';
import { ShortLiteralSearch } from '../../../src/io/fast-path/short-literal-search.js';

// The short literals of the shipped pack before a verdict, with the scanner's own stops.
const SHORT = ['%|', '\x1b', '^[[', 'EL0004', '[Gloo]', 'Xid ', 'SIGBUS', 'EL0009', 'Killed', "': -9}", 'File "', '# [', '\r'];

/** What the kernel's masks say for the pair at `at` (the same lookup as find_block's). */
function candidate(search: ShortLiteralSearch, bytes: Uint8Array, at: number): boolean {
  const m = search.masks;
  const [x, y] = [bytes[at]!, bytes[at + 1] ?? 0];
  return (m[x & 15]! & m[16 + (x >> 4)]! & m[32 + (y & 15)]! & m[48 + (y >> 4)]!) !== 0;
}

describe('ShortLiteralSearch', () => {
  const search = new ShortLiteralSearch(SHORT.map((text) => Buffer.from(text)));

  it.for(SHORT)('finds %j by its pair and by indexOf', (literal) => {
    const bytes = Buffer.from(`a quiet line\nthen ${literal} here\n`);
    const begin = bytes.indexOf(literal, 0, 'latin1');
    const pairs = [...bytes.keys()].map((at) => search.literalAt(bytes, at, 0, bytes.length)).filter((found) => found !== -1);
    expect(pairs).toContain(begin);
    expect(Math.min(...pairs)).toBe(begin);
    search.forget();
    expect(search.find(bytes, 0, bytes.length)).toBe(begin);
  });

  it('does not make the bytes of ordinary log lines candidates', () => {
    const text = Buffer.from('[2025-03-08 12:29:51 TP0] Decode batch. #running-req: 16, #token: 8859\nnode01:31204:31904 [4] NCCL INFO Channel 29/0 : 4[4] -> 5[5] via P2P/IPC\n');
    const candidates = [...text.keys()].filter((at) => candidate(search, text, at));
    // A `[` of `[4]` could begin `[Gloo]`; `#` of `# [`: a few, not every `]`, space or digit.
    expect(candidates.length).toBeLessThanOrEqual(8);
  });

  it('confirms only literals wholly inside the range', () => {
    const bytes = Buffer.from('xx Killed\n');
    const at = bytes.indexOf('Killed');
    const hits = [...bytes.keys()].map((k) => search.literalAt(bytes, k, 0, at + 5)).filter((found) => found !== -1);
    expect(hits).toEqual([]);
  });
});
