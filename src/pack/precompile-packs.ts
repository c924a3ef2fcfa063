/**
 * Build step (`node dist/pack/precompile-packs.js`, run by `npm run build`): reads every shipped
 * pack the slow, careful way (YAML with positions, schema, regex compile), analyses every pattern
 * with the regex parser, and writes the table `precompiled-packs.ts` serves at run time. A shipped
 * pack that does not load fails the build.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PackSource } from '../core/pack-types.js';
import { formatDiagnostic, PackError } from './diagnostic.js';
import { compileFiles, readPackWithIncludes, shippedRulesDir } from './load-pack.js';
import { packRules, rulePatterns } from './pack-rules.js';
import { analysePattern } from './pattern-analysis.js';
import { PRECOMPILED_FILE, PRECOMPILED_VERSION, patternKey, type PrecompiledTable } from './precompiled-packs.js';

export function buildPrecompiledTable(rulesDir = shippedRulesDir()): PrecompiledTable {
  const table: PrecompiledTable = { version: PRECOMPILED_VERSION, packs: {}, literals: {}, firstUnits: {}, shortLiterals: {} };
  for (const name of readdirSync(rulesDir).filter((f) => f.endsWith('.yaml')).sort()) {
    const { files, diagnostics } = readPackWithIncludes(join(rulesDir, name));
    if (diagnostics.length > 0) throw new PackError(diagnostics);
    compileFiles(files);
    const own = files[0]!;
    table.packs[name] = { text: own.source.text, data: own.data };
    for (const { pattern, ignoreCase } of patternsOf(own.data)) {
      const key = patternKey(pattern, ignoreCase);
      if (key in table.literals) continue;
      const facts = analysePattern(pattern, ignoreCase);
      table.literals[key] = facts.literals;
      table.firstUnits[key] = facts.firstUnits;
      if (facts.shortLiterals !== null) table.shortLiterals![key] = facts.shortLiterals;
    }
  }
  return table;
}

/** Every pattern the classifier runs frame by frame (the kinds the fast path knows: core/rule-kinds.ts). */
function patternsOf(pack: PackSource): { pattern: string; ignoreCase: boolean }[] {
  return packRules(pack)
    .flatMap((entry) => rulePatterns(entry))
    .filter((found) => found.fastPath !== 'none')
    .map((found) => ({ pattern: found.source, ignoreCase: found.entry.rule.ignore_case ?? false }));
}

export function writePrecompiledPacks(outFile = join(dirname(fileURLToPath(import.meta.url)), PRECOMPILED_FILE)): string {
  writeFileSync(outFile, `${JSON.stringify(buildPrecompiledTable())}\n`);
  return outFile;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    writePrecompiledPacks();
  } catch (error) {
    if (!(error instanceof PackError)) throw error;
    for (const d of error.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
    process.exitCode = 78;
  }
}
