/**
 * What the build learnt about the shipped packs, so `watch` starts without a YAML parser, ajv or
 * a regex parser: `npm run build` writes `precompiled-packs.json` beside this module (generated
 * output, never committed) holding each shipped pack file's text, its parsed and schema-checked
 * data, and what the syntax tree of every pattern says (required literals, first units).
 *
 * A pack is taken from the table only while its file's text is exactly the text that was checked,
 * so an edited pack is read, checked and analysed like any user pack. The table is a start-up
 * cache and nothing more: a pattern it does not know is analysed at load (pattern-analysis.ts).
 */
import type { CatalogMessage } from '../core/message-catalog.js';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PackSource } from '../core/pack-types.js';
import { includedPackPath } from './shipped-rules.js';

export const PRECOMPILED_FILE = 'precompiled-packs.json';
export const PRECOMPILED_VERSION = 2;

export interface PrecompiledTable {
  version: number;
  /** By file name (`sglang.yaml`): the text that was checked and the data it parsed to. */
  packs: Record<string, { text: string; data: PackSource }>;
  /** By `patternKey`: the literals one of which every match contains (null: unknown). */
  literals: Record<string, string[] | null>;
  /** By `patternKey`: the code units a non-empty match begins with (null: any). */
  firstUnits: Record<string, string | null>;
  /** By `patternKey`, for patterns without `literals`: required literals of 2+ characters. */
  shortLiterals?: Record<string, string[]>;
  /** The shipped catalog's messages (catalog-messages.ts). */
  messages?: CatalogMessage[];
}

/** One pattern with its flag, as the table keys it. */
export function patternKey(pattern: string, ignoreCase: boolean): string {
  return `${ignoreCase ? 'i' : '-'}${pattern}`;
}

let cached: PrecompiledTable | null | undefined;

/** The table written by the build, or undefined (running from sources, or an older build). */
export function precompiledTable(): PrecompiledTable | undefined {
  if (cached === undefined) {
    cached = null;
    try {
      const table = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), PRECOMPILED_FILE), 'utf8')) as PrecompiledTable;
      if (table.version === PRECOMPILED_VERSION) cached = table;
    } catch {
      // No table: every pack is read and checked from its YAML.
    }
  }
  return cached ?? undefined;
}

/**
 * The sources of a family pack and its includes, straight from the table, when every one of
 * those files still has the text that was checked at build time; otherwise undefined.
 */
export function precompiledSources(file: string, table = precompiledTable()): PackSource[] | undefined {
  if (!table) return undefined;
  const sources: PackSource[] = [];
  const seen = new Set<string>();
  // The same walk as readPackWithIncludes: depth first, each file once, in include order.
  const visit = (path: string): boolean => {
    if (seen.has(path)) return true;
    seen.add(path);
    const entry = table.packs[basename(path)];
    if (!entry || readText(path) !== entry.text) return false;
    sources.push(entry.data);
    return (entry.data.include ?? []).every((name) => visit(includedPackPath(path, name)));
  };
  return visit(file) ? sources : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
