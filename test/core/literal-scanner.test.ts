import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIRST_SAMPLE_AFTER, LiteralScanner } from '../../src/core/literal-scanner.js';
import { randomFloats as rng } from '../hostile/random.js';

function naive(literals: readonly string[], text: string): number[] {
  return literals.flatMap((literal, index) => (text.includes(literal) ? [index] : []));
}

function randomString(random: () => number, alphabet: string, maxLength: number): string {
  const length = Math.floor(random() * (maxLength + 1));
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

describe('LiteralScanner', () => {
  it.for<[string, string[], string, number[]]>([
    ['nothing to find', ['abc'], 'xyz xyz', []],
    ['empty text', ['abc'], '', []],
    ['one-unit text', ['a'], 'a', [0]],
    ['literal at the very start', ['Traceback'], 'Traceback (most recent call last):', [0]],
    ['literal at the very end, odd length', ['end'], 'the end', [0]],
    ['literal at the very end, even length', ['end'], 'an end', [0]],
    ['overlapping literals', ['abcd', 'bcde', 'cd'], 'xabcdex', [0, 1, 2]],
    ['literal inside another', ['out of memory', 'memory'], 'CUDA out of memory.', [0, 1]],
    ['duplicates are both reported', ['oom', 'xx', 'oom'], 'an oom here', [0, 2]],
    ['short literals', ['a', 'bc'], 'xxbcxx', [1]],
    ['non-ASCII and low-byte collisions', ['ÄÖÜ', 'ĀB'], 'xx\u0100B Ä\u00d6\u00dc', [0, 1]],
    ['surrogate pairs', ['🚀 up'], 'server 🚀 up', [0]],
  ])('%s', ([, literals, text, expected]) => {
    const scanner = new LiteralScanner(literals);
    expect(scanner.scan(text)).toEqual(expected);
    expect(scanner.hasAny(text)).toBe(expected.length > 0);
  });

  it('rejects an empty literal', () => {
    expect(() => new LiteralScanner(['ok', ''])).toThrow(RangeError);
  });

  it('an empty literal list finds nothing', () => {
    const scanner = new LiteralScanner([]);
    expect(scanner.scan('anything')).toEqual([]);
    expect(scanner.hasAny('anything')).toBe(false);
  });

  it.for([1, 2, 3, 4, 5])('agrees with a naive includes loop on random text (seed %i)', (seed) => {
    const random = rng(seed);
    // A tiny alphabet makes overlaps, repeats and near-misses common.
    const alphabet = seed % 2 === 0 ? 'abc' : 'ab cÄ\u0141';
    const literals = Array.from({ length: 40 }, () => randomString(random, alphabet, 6)).filter((l) => l.length > 0);
    const scanner = new LiteralScanner(literals);
    for (let i = 0; i < 3000; i++) {
      const text = randomString(random, alphabet, 40);
      const expected = naive(literals, text);
      expect(scanner.scan(text), text).toEqual(expected);
      expect(scanner.hasAny(text), text).toBe(expected.length > 0);
    }
  });

  it('stays correct across its periodic re-tuning', () => {
    const random = rng(99);
    const literals = ['NCCL error', 'out of memory', 'Traceback', 'GET /health', 'fired up', ' 200', 'xyz'];
    const scanner = new LiteralScanner(literals);
    const table = () => (scanner as unknown as { table: Uint8Array }).table;
    const tables = new Set([table()]);
    const shapes = [
      () => `[2025-01-01 00:00:0${Math.floor(random() * 10)}] INFO:     127.0.0.1:1 - "GET /health HTTP/1.1" 200 OK`,
      () => `node:1:2 [0] NCCL INFO Channel ${Math.floor(random() * 32)}/0 : 0[0] -> 1[1] via P2P/IPC`,
      () => randomString(random, 'NCL eroutfmyTacbkGH/xyz 0123456789', 80),
    ];
    for (let i = 0; i < 140_000; i++) {
      const text = shapes[Math.floor(i / 20_000) % shapes.length]!();
      const expected = naive(literals, text);
      const got = i % 2 === 0 ? scanner.scan(text) : scanner.hasAny(text) ? expected : [];
      if (got.length !== expected.length || got.some((v, k) => v !== expected[k])) {
        expect(got, `line ${i}: ${text}`).toEqual(expected);
      }
      tables.add(table());
    }
    // Static windows, then a retune after FIRST_SAMPLE_AFTER lines, then one every 64 Ki lines.
    expect(140_000).toBeGreaterThan(FIRST_SAMPLE_AFTER + 0x10000 + 256);
    expect(tables.size).toBe(3);
  });

  it('keeps its static windows while it has scanned fewer than FIRST_SAMPLE_AFTER lines', () => {
    const scanner = new LiteralScanner(['NCCL error', 'out of memory']);
    const table = (scanner as unknown as { table: Uint8Array }).table;
    for (let i = 0; i < FIRST_SAMPLE_AFTER - 1; i++) scanner.scan(`node:1:2 [0] NCCL INFO Channel ${i % 32}/0`);
    expect((scanner as unknown as { table: Uint8Array }).table).toBe(table);
  });

  it('agrees with a naive includes loop on every fixture line', () => {
    const root = fileURLToPath(new URL('../../fixtures', import.meta.url));
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.log'));
    const lines = files.flatMap((f) => readFileSync(join(root, f), 'utf8').split(/\r\n|\r|\n/));
    const literals = [
      'CUDA out of memory', ' out of memory', 'Traceback (most recent call last)', 'NCCL error', 'Load weight end.',
      'KV Cache ', ' graph failed: ', ' scheduler ', 'The server is fired up and ready to roll!', 'Application startup complete.',
      'Killed', 'Segmentation fault', 'RuntimeError', 'Watchdog', 'atchdog timeout', ' GB', 'INFO', 'TP0', 'Error', 'e', '00',
    ];
    const scanner = new LiteralScanner(literals);
    let hits = 0;
    for (const line of lines) {
      const expected = naive(literals, line);
      const got = scanner.scan(line);
      if (got.length !== expected.length || got.some((v, k) => v !== expected[k])) expect(got, line).toEqual(expected);
      expect(scanner.hasAny(line)).toBe(expected.length > 0);
      if (expected.length > 0) hits++;
    }
    expect(lines.length).toBeGreaterThan(5000);
    expect(hits).toBeGreaterThan(1000);
  });

  it('is core code: imports nothing from node: and reads no clock', () => {
    const source = readFileSync(fileURLToPath(new URL('../../src/core/literal-scanner.ts', import.meta.url)), 'utf8');
    expect(source).not.toMatch(/from ['"]node:|require\(|import\(/);
    expect(source).not.toMatch(/Date\.now|new Date|performance\.now|process\./);
  });
});
