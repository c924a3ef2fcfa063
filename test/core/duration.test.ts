import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/core/duration.js';

describe('parseDuration', () => {
  it.for([
    ['90s', 90_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['2.5m', 150_000],
    ['45', 45_000],
    ['1d', 86_400_000],
  ] as const)('%s', ([text, ms]) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.for(['', 'soon', '5 minutes', '1x', 'm5', '-5s'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.for([
    [850, '850ms'],
    [42_000, '42s'],
    [192_000, '3m12s'],
    [3_900_000, '1h05m'],
  ] as const)('%d ms', ([ms, text]) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
