/**
 * KnownBars tells a known bar's frame apart the same way from text and from raw bytes, wherever
 * the bytes lie in memory: a head is compared four bytes at a time through a view of the bytes'
 * memory (known-bars.ts headEnd), so a frame must be found at every alignment, from a chunk
 * given again or a new one, and a frame that differs from the head in any single byte must not.
 * The hits come from the shipped pack's own rules.
 */
import { describe, expect, it } from 'vitest';
import { KnownBars } from '../../src/core/known-bars.js';
import { matchFrame } from '../../src/core/match-frame.js';
import { parseFrame } from '../../src/core/parse-line.js';
import { shippedPack } from '../helpers/classify.js';

const pack = shippedPack('sglang');
const FIRST = '(Worker_TP3 pid=41203) Loading safetensors checkpoint shards:   0% Completed | 0/49 [00:00<?, ?it/s]';
const LATER = '(Worker_TP3 pid=41203) Loading safetensors checkpoint shards:  12% Completed | 6/49 [00:03<00:25,  1.75it/s]';

function learned(): KnownBars {
  const bars = new KnownBars();
  const hit = matchFrame(pack, parseFrame(FIRST, pack.prefixes)).progress!;
  bars.learn(FIRST, hit, hit.countersAt);
  expect(bars.size).toBe(1);
  return bars;
}

/** `text` as bytes at byte `offset` of a larger buffer. */
function placedAt(text: string, offset: number): Buffer {
  const bytes = Buffer.from(text);
  const backing = Buffer.alloc(offset + bytes.length + 8, 0x41);
  bytes.copy(backing, offset);
  return backing.subarray(offset, offset + bytes.length);
}

describe('KnownBars', () => {
  it('finds a later frame in raw bytes at every alignment, as it does in text', () => {
    const bars = learned();
    const fromText = bars.recognize(LATER, 0, LATER.length);
    expect(fromText).toBeDefined();
    expect({ ...bars.reading }).toEqual({ current: 6, elapsedS: 3 });
    for (let offset = 0; offset < 8; offset++) {
      // The frame further on in each chunk: a view kept from the chunk before would not find it.
      const noise = `${'n'.repeat(offset + 1)}\n`;
      const bytes = placedAt(`${noise}${LATER}\n`, offset);
      // Twice from the same chunk (its view is kept), and from one after another.
      for (let again = 0; again < 2; again++) {
        bars.reading.current = -1;
        expect(bars.recognize(bytes, noise.length, noise.length + LATER.length), `offset ${offset}`).toBe(fromText);
        expect({ ...bars.reading }).toEqual({ current: 6, elapsedS: 3 });
      }
    }
  });

  it('finds no frame whose head differs in any one byte, in bytes or in text', () => {
    const bars = learned();
    const headLength = FIRST.indexOf(':   0%');
    for (let at = 0; at < headLength; at++) {
      const changed = `${LATER.slice(0, at)}${LATER[at] === 'x' ? 'y' : 'x'}${LATER.slice(at + 1)}`;
      expect(bars.recognize(changed, 0, changed.length), `text, byte ${at}`).toBeUndefined();
      const bytes = placedAt(changed, at % 4);
      expect(bars.recognize(bytes, 0, bytes.length), `bytes, byte ${at}`).toBeUndefined();
    }
  });
});
