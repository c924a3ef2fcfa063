/**
 * The analysis compilePack takes, looked up: in the build's table, else among the facts already
 * read (a pack cache's), else asked of `analyse`. Apart from the analyser (pattern-analysis.ts),
 * so that a pack the build or the pack cache checked is compiled without loading a regex parser.
 */
import type { CompileOptions } from '../core/compile-pack.js';
import { patternKey, type PrecompiledTable } from './precompiled-packs.js';

/** One pattern's analysis, as the build's table stores it. */
export interface PatternFacts {
  literals: string[] | null;
  firstUnits: string | null;
  /** For a pattern without `literals`: required literals of 2+ characters (null: none known). */
  shortLiterals: string[] | null;
}

/** `read` holds the facts already known by pattern key, and receives every one looked up or analysed. */
export function lookupAnalysis(table: PrecompiledTable | undefined, read: Map<string, PatternFacts>, analyse: (pattern: string, ignoreCase: boolean) => PatternFacts): CompileOptions {
  const factsOf = (pattern: string, ignoreCase: boolean): PatternFacts => {
    const key = patternKey(pattern, ignoreCase);
    let facts = read.get(key);
    if (facts === undefined) {
      facts = table && key in table.literals ? fromTable(table, key) : analyse(pattern, ignoreCase);
      read.set(key, facts);
    }
    return facts;
  };
  return {
    literalsOf: (pattern, ignoreCase) => factsOf(pattern, ignoreCase).literals,
    firstUnitsOf: (pattern, ignoreCase) => factsOf(pattern, ignoreCase).firstUnits,
    shortLiteralsOf: (pattern, ignoreCase) => factsOf(pattern, ignoreCase).shortLiterals,
  };
}

function fromTable(table: PrecompiledTable, key: string): PatternFacts {
  return { literals: table.literals[key] ?? null, firstUnits: table.firstUnits[key] ?? null, shortLiterals: table.shortLiterals?.[key] ?? null };
}
