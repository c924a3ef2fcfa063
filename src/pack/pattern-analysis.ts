/**
 * What the prefilter and the prefix peeler need from every pattern's syntax tree (its required
 * literals, the units its matches begin with), for any pack: a pattern the build's table knows
 * (a shipped pack's) is looked up there, any other (a curator's rule, a shipped pack edited
 * without `npm run build`) is analysed when the pack is loaded. The table is only a start-up
 * cache: every pack gets the same analysis, so every pack gets the fast path.
 */
import type { CompileOptions } from '../core/compile-pack.js';
import { firstUnits } from './first-units.js';
import { requiredLiterals } from './literals.js';
import { lookupAnalysis, type PatternFacts } from './pattern-lookup.js';
import { precompiledTable, type PrecompiledTable } from './precompiled-packs.js';

export type { PatternFacts } from './pattern-lookup.js';

/** Reads one pattern's syntax tree; a pattern regexpp cannot parse (V8 compiled it) is unknown: it runs on every frame. */
export function analysePattern(pattern: string, ignoreCase: boolean): PatternFacts {
  try {
    const literals = requiredLiterals(pattern, { ignoreCase });
    return {
      literals,
      firstUnits: firstUnits(pattern, { ignoreCase }),
      shortLiterals: literals === null ? requiredLiterals(pattern, { ignoreCase, minLength: 2 }) : null,
    };
  } catch {
    return { literals: null, firstUnits: null, shortLiterals: null };
  }
}

/**
 * The analysis compilePack takes: from the table when it knows the pattern, else read now (once
 * per pattern). `read` holds the facts already known by pattern key, and receives every one
 * looked up or read (what a pack cache keeps).
 */
export function patternAnalysis(table: PrecompiledTable | undefined = precompiledTable(), read = new Map<string, PatternFacts>()): CompileOptions {
  return lookupAnalysis(table, read, analysePattern);
}
