import { describe, expect, it } from 'vitest';
import { firstUnits } from '../../src/pack/first-units.js';

describe('firstUnits', () => {
  it.for<[string, boolean, string | null]>([
    ['^\\[(?<date>\\d{4})\\] ', false, '['],
    ['^\\[?(?<level>[IWEF])\\d{4}', false, 'EFIW['],
    ['^(?<level>INFO|WARNING|ERROR):\\s+', false, 'EIW'],
    ['^[│┃]\\s*', false, '│┃'],
    ['^\\d{4}-', false, '0123456789'],
    ['^(?:\\S+ )?INFO', false, null],
    ['^(?:ab)?(?:cd)*e', false, 'ace'],
    ['^(?=x)y', false, 'y'],
    ['^info', true, 'Ii'],
    ['^[a-c]', true, 'ABCabc'],
    ['^é', true, null],
    ['^.', false, null],
    ['^[^a]', false, null],
    ['^a|b', false, 'ab'],
    ['^(a)\\1', false, 'a'],
    ['^\\1?(a)', false, null],
  ])('%s (ignoreCase %s) -> %j', ([pattern, ignoreCase, expected]) => {
    expect(firstUnits(pattern, { ignoreCase })).toBe(expected);
  });

  it('knows every unit \\s can begin with', () => {
    const units = firstUnits('^\\s*\\| ')!;
    for (const unit of [' ', '\t', '\u00a0', '\u3000', '\ufeff', '|']) expect(units).toContain(unit);
    expect(units).not.toContain('a');
  });

  it('a unit left out never starts a match', () => {
    const patterns = ['^\\[(?<date>\\d{4}-\\d{2})\\] ', '^(?<level>DEBUG|INFO)(?: \\d+)?:', '^[A-Za-z0-9][\\w.-]*[-_]\\d+\\s+\\| ', '^x*y?z'];
    const samples = ['[2025-01] ', 'INFO:', 'DEBUG 1:', 'vllm-1  | ', 'z', 'xxz', 'yz', '1abc_2 | '];
    for (const pattern of patterns) {
      const units = firstUnits(pattern);
      for (const sample of samples) {
        const match = new RegExp(pattern).exec(sample);
        if (match && match[0].length > 0 && units !== null) expect(units, `${pattern} on ${sample}`).toContain(sample[0]);
      }
    }
  });
});
