/**
 * Test helper: a shipped pack compiled with the pattern analysis the build does (`npm run build`
 * writes it to a table that tests running from src do not have): every rule with its literals.
 */
import { compilePack, type CompileOptions } from '../../src/core/compile-pack.js';
import type { CompiledPack } from '../../src/core/pack-types.js';
import { firstUnits } from '../../src/pack/first-units.js';
import { requiredLiterals } from '../../src/pack/literals.js';
import { readPackWithIncludes, resolvePackRef } from '../../src/pack/load-pack.js';

export const analysis: CompileOptions = {
  literalsOf: (pattern, ignoreCase) => requiredLiterals(pattern, { ignoreCase }),
  firstUnitsOf: (pattern, ignoreCase) => firstUnits(pattern, { ignoreCase }),
  shortLiteralsOf: (pattern, ignoreCase) => requiredLiterals(pattern, { ignoreCase, minLength: 2 }),
};

const cache = new Map<string, CompiledPack>();

export function analysedPack(family: 'sglang' | 'vllm'): CompiledPack {
  let pack = cache.get(family);
  if (!pack) {
    pack = compilePack(readPackWithIncludes(resolvePackRef(family)).files.map((f) => f.data), analysis);
    cache.set(family, pack);
  }
  return pack;
}
