/**
 * `spinup lint` as a library call: reads each pack with its includes, runs every check once per
 * file (a shared pack included twice is linted once), and returns located diagnostics, sorted.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Diagnostic } from './diagnostic.js';
import { formatDiagnostic } from './diagnostic.js';
import { lintFamily, compileProblems } from './lint-family.js';
import { lintFile, type FileLintContext } from './lint-file.js';
import { FAMILIES, readPackWithIncludes, resolvePackRef, shippedRulesDir, type PackFile } from './load-pack.js';

export interface LintOptions {
  /** Pack names (`sglang`) or files; default: the shipped families. */
  refs?: readonly string[];
  cwd: string;
  rulesDir?: string;
  /** Where `fixtures:` entries are looked up; default `cwd/fixtures`, else the installation's. */
  fixturesDir?: string;
}

export interface LintResult {
  diagnostics: Diagnostic[];
  /** Every file read, as displayed. */
  files: string[];
  errors: number;
  warnings: number;
}

export async function lintPacks(options: LintOptions): Promise<LintResult> {
  const context = await fileContext(options);
  const refs = options.refs && options.refs.length > 0 ? options.refs : FAMILIES;
  const display = (file: string): string => {
    const shown = relative(options.cwd, file);
    return shown === '' || shown.startsWith('..') || isAbsolute(shown) ? file : shown;
  };
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const linted = new Set<string>();
  for (const ref of refs) {
    const path = /[\\/]/.test(ref) || /\.ya?ml$/.test(ref) ? resolve(options.cwd, ref) : resolvePackRef(ref, options.rulesDir);
    const read = readPackWithIncludes(path, display);
    diagnostics.push(...read.diagnostics);
    if (!files.includes(display(path))) files.push(display(path));
    for (const file of read.files) {
      if (!files.includes(file.source.file)) files.push(file.source.file);
      if (linted.has(file.file)) continue;
      linted.add(file.file);
      diagnostics.push(...lintFile(file, context));
    }
    diagnostics.push(...familyProblems(read.files, read.diagnostics.length > 0 || hasErrors(diagnostics, read.files)));
  }
  const sorted = sortDiagnostics(dedupe(diagnostics), files);
  return {
    diagnostics: sorted,
    files,
    errors: sorted.filter((d) => d.severity === 'error').length,
    warnings: sorted.filter((d) => d.severity === 'warning').length,
  };
}

function familyProblems(files: PackFile[], broken: boolean): Diagnostic[] {
  if (files.length === 0) return [];
  const problems = lintFamily(files);
  // Compile only what passed every check: the loader's own message would repeat a known problem.
  if (!broken && problems.length === 0) problems.push(...compileProblems(files));
  return problems;
}

function hasErrors(diagnostics: Diagnostic[], files: PackFile[]): boolean {
  const names = new Set(files.map((f) => f.source.file));
  return diagnostics.some((d) => d.severity === 'error' && names.has(d.file));
}

async function fileContext(options: LintOptions): Promise<FileLintContext> {
  // The regex analysers are heavy; only lint pays for them.
  const { checkPattern } = await import('./regex-check.js');
  // Required, not imported: the bundled CLI is a script, which has no loader for import() of a package.
  const { RegExpParser, visitRegExpAST } = createRequire(import.meta.url)('@eslint-community/regexpp') as typeof import('@eslint-community/regexpp');
  const parser = new RegExpParser({ ecmaVersion: 2024 });
  const groupNames = (pattern: string): Set<string> | undefined => {
    try {
      const names = new Set<string>();
      visitRegExpAST(parser.parsePattern(pattern, 0, pattern.length, { unicode: false }), {
        onCapturingGroupEnter: (node) => void (node.name !== null && names.add(node.name)),
      });
      return names;
    } catch {
      return undefined;
    }
  };
  return { checkPattern, groupNames, fixturesDir: fixturesDir(options), cwd: options.cwd };
}

function fixturesDir(options: LintOptions): string | undefined {
  if (options.fixturesDir !== undefined) return resolve(options.cwd, options.fixturesDir);
  const candidates = [join(options.cwd, 'fixtures'), join(options.rulesDir ?? shippedRulesDir(), '..', 'fixtures')];
  return candidates.find((dir) => existsSync(dir));
}

function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = formatDiagnostic(d);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Files in the order they were read, then by position. */
function sortDiagnostics(diagnostics: Diagnostic[], files: string[]): Diagnostic[] {
  const rank = (file: string): number => {
    const index = files.indexOf(file);
    return index < 0 ? files.length : index;
  };
  return [...diagnostics].sort((a, b) => rank(a.file) - rank(b.file) || a.line - b.line || a.column - b.column);
}
