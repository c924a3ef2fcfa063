/**
 * Build step (`node dist/pack/precompile-packs.js`, run by `npm run build`): reads every shipped
 * pack the slow, careful way (YAML with positions, schema, regex compile), analyses every pattern
 * the compiler asks about with the regex parser, and writes the table `precompiled-packs.ts` serves at run time. A shipped
 * pack that does not load fails the build.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatDiagnostic, PackError } from './diagnostic.js';
import { readCatalogMessages } from './catalog-messages.js';
import { compileFiles, readPackWithIncludes, shippedRulesDir } from './load-pack.js';
import type { PatternFacts } from './pattern-analysis.js';
import { PRECOMPILED_FILE, PRECOMPILED_VERSION, type PrecompiledTable } from './precompiled-packs.js';

export function buildPrecompiledTable(rulesDir = shippedRulesDir()): PrecompiledTable {
  const table: PrecompiledTable = { version: PRECOMPILED_VERSION, packs: {}, literals: {}, firstUnits: {}, shortLiterals: {} };
  // Every pattern the compiler asks about, of every kind, read fresh (never from an older table):
  // the table holds exactly what loading a shipped pack will look up, whatever kinds the pack has.
  const facts = new Map<string, PatternFacts>();
  for (const name of readdirSync(rulesDir).filter((f) => f.endsWith('.yaml')).sort()) {
    const { files, diagnostics } = readPackWithIncludes(join(rulesDir, name));
    if (diagnostics.length > 0) throw new PackError(diagnostics);
    compileFiles(files, { table: null, facts });
    const own = files[0]!;
    table.packs[name] = { text: own.source.text, data: own.data };
  }
  table.messages = readCatalogMessages();
  for (const [key, { literals, firstUnits, shortLiterals }] of facts) {
    table.literals[key] = literals;
    table.firstUnits[key] = firstUnits;
    if (shortLiterals !== null) table.shortLiterals![key] = shortLiterals;
  }
  return table;
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
