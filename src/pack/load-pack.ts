/** Loads rule packs from YAML: parse with positions, check the schema, resolve includes, compile. */
import { catalogMessages } from './catalog-messages.js';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { compilePack, RuleCompileError, type CompileOptions } from '../core/compile-pack.js';
import type { CompiledPack, PackSource } from '../core/pack-types.js';
import { PackError, type Diagnostic } from './diagnostic.js';
import { capPolynomialPatterns, polynomialPatterns } from './backtracking-guard.js';
import { loadCheckedPack } from './checked-pack.js';
import { writePackCache, type CachedPack } from './pack-cache.js';
import { readPackInWorker } from './read-pack-in-worker.js';
import { checkSchema } from './schema-check.js';
import { findRulePath } from './pack-rules.js';
import { patternAnalysis, type PatternFacts } from './pattern-analysis.js';
import { precompiledTable } from './precompiled-packs.js';
import { includedPackPath, resolvePackRef, shippedPackNames, shippedRulesDir } from './shipped-rules.js';
import { parseYamlSource, positionOf, type YamlSource } from './yaml-source.js';


export interface PackFile {
  name: string;
  file: string;
  source: YamlSource;
  data: PackSource;
}

/** Reads and schema-checks one pack file; diagnostics instead of throwing. */
export function readPackFile(file: string, displayName = file): { pack?: PackFile; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    return { diagnostics: [{ file: displayName, line: 1, column: 1, severity: 'error', code: 'pack/unreadable', message: `Cannot read the pack: ${reason}.` }] };
  }
  const { source, diagnostics } = parseYamlSource(displayName, text);
  if (diagnostics.length > 0) return { diagnostics };
  let data: unknown;
  try {
    data = source.document.toJS();
  } catch (error) {
    // `yaml` refuses to expand an alias bomb (a few lines that would unfold into billions of nodes).
    const reason = error instanceof Error ? error.message : String(error);
    return { diagnostics: [{ file: displayName, line: 1, column: 1, severity: 'error', code: 'pack/yaml-syntax', message: `The pack cannot be read as data: ${reason}. Remove the YAML aliases (*name) that repeat others.` }] };
  }
  const schemaProblems = checkSchema(source, data);
  if (schemaProblems.length > 0) return { diagnostics: schemaProblems };
  const pack = data as PackSource;
  return { pack: { name: pack.pack, file, source, data: pack }, diagnostics: [] };
}

/** Reads a family pack and every pack it includes (beside it, else shipped: see includedPackPath). */
export function readPackWithIncludes(file: string, display: (file: string) => string = defaultDisplay): { files: PackFile[]; diagnostics: Diagnostic[] } {
  const files: PackFile[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const { pack, diagnostics: problems } = readPackFile(path, display(path));
    diagnostics.push(...problems);
    if (!pack) return;
    files.push(pack);
    for (const [index, name] of (pack.data.include ?? []).entries()) {
      const included = includedPackPath(path, name);
      try {
        readFileSync(included);
      } catch {
        const pos = positionOf(pack.source, ['include', index]);
        const fix = `put ${name}.yaml beside the pack, or include a shipped pack (${shippedPackNames().join(', ')})`;
        diagnostics.push({ file: pack.source.file, ...pos, severity: 'error', code: 'pack/missing-include', message: `Included pack "${name}" not found (looked for ${display(included)}; spinup ships no pack of that name): ${fix}.` });
        continue;
      }
      visit(included);
    }
  };
  visit(file);
  return { files, diagnostics };
}

export interface LoadOptions {
  /** `rules/` to resolve a family name in (default: this installation's). */
  rulesDir?: string;
  /** Leave out the failure rules that name a cause (see `CompileOptions.withoutCauseRules`). */
  withoutCauseRules?: CompileOptions['withoutCauseRules'];
  /** Where a foreign pack's checked form may be cached (pack-cache.ts); omitted: no cache. */
  cacheDir?: string;
  /**
   * Read a pack that neither the build's table nor the cache holds in a worker thread
   * (read-pack-in-worker.ts), so that the parsers and what they leave behind never weigh on the
   * watch that follows. The CLI asks for it; the answer is the same either way.
   */
  isolate?: boolean;
}

/** Loads and compiles a pack by name or path; throws PackError with located diagnostics. */
export function loadPack(ref: string, loadOptions: LoadOptions | string = {}): CompiledPack {
  // A string is the rules directory (the signature before LoadOptions existed).
  const options = typeof loadOptions === 'string' ? { rulesDir: loadOptions } : loadOptions;
  const file = resolvePackRef(ref, options.rulesDir);
  const { cacheDir, withoutCauseRules } = options;
  const checked = loadCheckedPack(file, { cacheDir, withoutCauseRules });
  if (checked) return checked;
  const read = options.isolate ? readPackInWorker(file, cacheDir) : undefined;
  if (read) return capPolynomialPatterns(compilePack(read.sources, { ...patternAnalysis(undefined, read.facts), withoutCauseRules, messages: catalogMessages() }), read.polynomial);
  return readPackCarefully(file, { cacheDir, withoutCauseRules }).pack;
}

/**
 * The careful read of a pack no table or cache holds: YAML with positions, the schema, every
 * pattern's analysis and the backtracking check; what was checked goes to the cache in
 * `cacheDir` when given. Throws PackError with located diagnostics.
 */
export function readPackCarefully(file: string, options: { cacheDir?: string; withoutCauseRules?: CompileOptions['withoutCauseRules'] } = {}): { pack: CompiledPack; checked: CachedPack } {
  const { files, diagnostics } = readPackWithIncludes(file);
  if (diagnostics.length > 0) throw new PackError(diagnostics);
  const facts = new Map<string, PatternFacts>();
  const pack = compileFiles(files, { facts, withoutCauseRules: options.withoutCauseRules });
  const polynomial = polynomialPatterns(files.filter((f) => dirname(f.file) !== shippedRulesDir()));
  if (options.cacheDir !== undefined) writePackCache(options.cacheDir, files.map((f) => ({ file: f.file, text: f.source.text, data: f.data })), facts, polynomial);
  return { pack: capPolynomialPatterns(pack, polynomial), checked: { sources: files.map((f) => f.data), facts, polynomial } };
}

/**
 * `facts` receives every pattern's analysis (what a pack cache keeps); `table: null` analyses
 * every pattern afresh instead of looking it up in the build's table (what the build itself does).
 */
export function compileFiles(files: PackFile[], options: { facts?: Map<string, PatternFacts>; table?: null; withoutCauseRules?: CompileOptions['withoutCauseRules'] } = {}): CompiledPack {
  const table = options.table === null ? undefined : precompiledTable();
  try {
    return compilePack(files.map((f) => f.data), { ...patternAnalysis(table, options.facts), withoutCauseRules: options.withoutCauseRules, messages: catalogMessages() });
  } catch (error) {
    if (error instanceof RuleCompileError) throw new PackError([locateCompileError(files, error)]);
    throw error;
  }
}

function locateCompileError(files: PackFile[], error: RuleCompileError): Diagnostic {
  const file = files.find((f) => f.data.pack === error.pack) ?? files[0]!;
  const path = findRulePath(file.data, error.ruleId);
  const pos = path ? positionOf(file.source, [...path, 'pattern']) : { line: 1, column: 1 };
  return { file: file.source.file, ...pos, severity: 'error', code: 'regex/syntax', message: `Rule ${error.ruleId}: ${error.detail}` };
}

export { findRulePath };
export { FAMILIES, resolvePackRef, shippedRulesDir } from './shipped-rules.js';

function defaultDisplay(file: string): string {
  const rules = shippedRulesDir();
  return file.startsWith(rules) ? join('rules', basename(file)) : file;
}
