/**
 * Caps the input of a foreign pack's patterns that backtrack polynomially (found by
 * backtracking-guard.ts, or kept by the pack cache): apart from the guard, so that a pack from
 * the cache is capped without loading the analysers.
 */
import type { CompiledPack } from '../core/pack-types.js';
import { capPatternInput } from '../core/regex-budget.js';

/** Gives every regex of `pack` that `polynomialPatterns` named the shorter input cap. */
export function capPolynomialPatterns(pack: CompiledPack, polynomial: readonly string[]): CompiledPack {
  if (polynomial.length === 0) return pack;
  const risky = new Set(polynomial);
  const frameRegexes = pack.frameFailures.flatMap((rule) => [rule.inFrame, rule.inTraceback]);
  for (const regex of [...pack.allRules.map((rule) => rule.regex), ...pack.ready.flatMap((rule) => rule.confirm), ...frameRegexes]) {
    if (regex && risky.has(`${regex.flags}/${regex.source}`)) capPatternInput(regex);
  }
  return pack;
}
