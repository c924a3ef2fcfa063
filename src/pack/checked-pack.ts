/**
 * A pack compiled from what was checked before: the build's table (a shipped pack unchanged
 * since the build) or the pack cache (a curator's pack unchanged since it was first read). It
 * loads no YAML parser, schema or regex analyser: the CLI asks here first and loads the careful
 * reader (load-pack.ts) only when this has no answer.
 */
import { catalogMessages } from './catalog-messages.js';
import { compilePack, type CompileOptions } from '../core/compile-pack.js';
import type { CompiledPack, PackSource } from '../core/pack-types.js';
import { capPolynomialPatterns } from './cap-polynomial.js';
import { readPackCache } from './pack-cache.js';
import { lookupAnalysis, type PatternFacts } from './pattern-lookup.js';
import { precompiledSources, precompiledTable, type PrecompiledTable } from './precompiled-packs.js';

export interface CheckedOptions {
  /** Where a foreign pack's checked form may be cached (pack-cache.ts). */
  cacheDir?: string;
  withoutCauseRules?: CompileOptions['withoutCauseRules'];
}

/** The compiled pack of `file` (a resolved path), or undefined when neither the table nor the cache holds it. */
export function loadCheckedPack(file: string, options: CheckedOptions = {}): CompiledPack | undefined {
  const shipped = precompiledSources(file);
  if (shipped) return compileKnown(shipped, precompiledTable(), new Map(), options);
  const cached = options.cacheDir === undefined ? undefined : readPackCache(options.cacheDir, file);
  const pack = cached && compileKnown(cached.sources, undefined, cached.facts, options);
  return pack && capPolynomialPatterns(pack, cached!.polynomial);
}

const UNKNOWN: PatternFacts = { literals: null, firstUnits: null, shortLiterals: null };

/** Undefined when a pattern is not among the known facts: only the analyser can tell its literals. */
function compileKnown(sources: PackSource[], table: PrecompiledTable | undefined, facts: Map<string, PatternFacts>, options: CheckedOptions): CompiledPack | undefined {
  let complete = true;
  const unknown = (): PatternFacts => {
    complete = false;
    return UNKNOWN;
  };
  const pack = compilePack(sources, { ...lookupAnalysis(table, facts, unknown), withoutCauseRules: options.withoutCauseRules, messages: catalogMessages() });
  return complete ? pack : undefined;
}
