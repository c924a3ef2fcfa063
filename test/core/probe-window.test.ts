/**
 * The static window choice in one pass is the choice `cheapestWindow` makes with the static
 * guess as its cost: the scanner's first probe table is the same either way.
 */
import { describe, expect, it } from 'vitest';
import { cheapestWindow, codeUnits, staticCost, staticWindow } from '../../src/core/probe-window.js';

/** A deterministic pseudo-random string over log-like units (letters, digits, punctuation, a few beyond ASCII). */
function sample(seed: number, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 :.,-_/=[]()|"\'\té—✓';
  let state = seed;
  let text = '';
  for (let k = 0; k < length; k++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    text += alphabet[state % alphabet.length];
  }
  return text;
}

describe('staticWindow', () => {
  it.for(['abc', 'xyz', 'CUDA out of memory', 'aaaaaaa', 'NCCL WARN', 'Traceback (most recent call last):', '   ', 'e e e'])('picks what cheapestWindow picks by the static cost: %j', (text) => {
    const units = codeUnits(text);
    expect(staticWindow(units)).toBe(cheapestWindow(units, (at) => staticCost(units, at)));
  });

  it('on 2,000 generated literals of 3 to 80 units, ties included', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const units = codeUnits(sample(seed, 3 + (seed % 78)));
      expect(staticWindow(units)).toBe(cheapestWindow(units, (at) => staticCost(units, at)));
    }
  });
});
