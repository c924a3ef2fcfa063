/** stripCodes: the line guard's colour-code stripping, on bytes, for the codes logs are full of. */
import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../../src/core/line-guard.js';
import { stripCodes } from '../../../src/io/fast-path/strip-codes.js';
import { randomFloats } from '../../hostile/random.js';

function stripped(text: string, room = 4096): string | undefined {
  const bytes = Buffer.from(text);
  const out = Buffer.alloc(room);
  const length = stripCodes(bytes, 0, bytes.length, out);
  return length < 0 ? undefined : out.toString('utf8', 0, length);
}

describe('stripCodes', () => {
  it.for<[string, string]>([
    ['\x1b[36m(APIServer pid=1)\x1b[0m INFO', '(APIServer pid=1) INFO'],
    ['Kil\x1b[0mled', 'Killed'],
    ['\x1b[1;31;40m\x1b[0mé\x1b[?25l', 'é'],
    ['\x1b[ q', ''],
    ['\x1b[[x', 'x'],
    ['^[[1mKil^[[0mled', 'Killed'],
    ['^[[Killed', 'illed'],
    ['^[[ 1m', '^[[ 1m'],
    ['^[[', '^[['],
    ['a^[[12;3', 'a^[[12;3'],
    ['no codes at all', 'no codes at all'],
  ])('%j reads as %j', ([text, expected]) => {
    expect(stripAnsi(text)).toBe(expected);
    expect(stripped(text)).toBe(expected);
  });

  it.for(['\x1b]0;title\x07Killed', '\x1b(BKilled', '\x1b[31', '\x1b[3\r1m', '\x1b[31:2m', 'x\x1b', '\x1bM'])('leaves %j to the line guard (an escape it does not strip)', (text) => {
    expect(stripped(text)).toBeUndefined();
  });

  it('refuses a line longer than the room it is given', () => {
    expect(stripped('x'.repeat(11), 10)).toBeUndefined();
    expect(stripped('x'.repeat(10), 10)).toBe('x'.repeat(10));
  });

  it('strips what stripAnsi strips, on random mixes of codes, their pieces and text', () => {
    const random = randomFloats(20261202);
    const pieces = ['\x1b', '[', '^', '^[[', '\x1b[', '0', '1', ';', '?', ' ', '/', 'm', 'K', '~', '@', 'a', 'é', '€', '\r', ']', '\x07', ':', '\\'];
    let compared = 0;
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      for (let k = Math.floor(random() * 12); k >= 0; k--) text += pieces[Math.floor(random() * pieces.length)];
      const ours = stripped(text);
      if (ours === undefined) continue;
      compared++;
      // Per frame, as the guard strips: no code stripped here spans a `\r`.
      expect(ours, JSON.stringify(text)).toBe(text.split('\r').map(stripAnsi).join('\r'));
    }
    expect(compared).toBeGreaterThan(5_000);
  });
});
