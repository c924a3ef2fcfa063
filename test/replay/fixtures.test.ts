/** One test per captured fixture: the packs must give what really happened. */
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverFixtures } from '../../src/replay/discover.js';
import { FAMILIES } from '../../src/pack/load-pack.js';
import { loadPacks } from '../../src/replay/load-families.js';
import { runCase } from '../../src/replay/run-case.js';

const root = join(import.meta.dirname, '../../fixtures');
// Each shipped family's fixtures live in fixtures/FAMILY.
const { pairs } = discoverFixtures(FAMILIES.map((family) => join(root, family)));
const packs = loadPacks();

describe('captured fixtures', () => {
  it('are all there', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(235);
  });

  it.for(pairs.map((pair) => ({ ...pair, name: `${basename(dirname(pair.log))}/${basename(pair.log, '.log')}` })))('$name', (pair) => {
    const result = runCase(pair, { packs });
    expect(result.mismatches).toEqual([]);
  });

  it('a healthy start is never called failed or stalled', () => {
    const wrong = pairs
      .map((pair) => runCase(pair, { packs }))
      .filter((r) => r.expected.verdict.length === 1 && r.expected.verdict[0] === 'ready' && r.verdict.verdict !== 'ready');
    expect(wrong.map((r) => r.log)).toEqual([]);
  });
});
