/**
 * The servers' own messages for the classifier (core/message-catalog.ts), read from the shipped
 * catalog/*.yaml: the build keeps them in its precompiled table, so a start parses no YAML for
 * them; without a build (tests from sources) they are read from the YAML once per process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CatalogMessage, MessageKind } from '../core/message-catalog.js';
import type { Cause } from '../core/vocabulary.js';
import { precompiledTable } from './precompiled-packs.js';
import { yamlModule } from './yaml-module.js';

/** `catalog/` of this installation (next to `dist/` or `src/`, beside `rules/`). */
export function shippedCatalogDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'catalog');
}

export const CATALOG_FILES = ['vllm.yaml', 'sglang.yaml', 'platform.yaml'] as const;

interface RawEntry {
  id: string;
  literal: unknown;
  kind: MessageKind;
  printed_as: string;
  cause?: string | string[];
}

/** `exception X` -> exception, `log error` -> error, ... */
function printedOf(printedAs: string): CatalogMessage['printed'] {
  const [how, level] = printedAs.trim().split(/\s+/);
  if (how === 'exception') return 'exception';
  if (how === 'log') return level === 'error' || level === 'warning' || level === 'info' ? level : 'error';
  return how === 'print' ? 'print' : 'native';
}

/** Reads the catalog's files; a missing file reads as none (a pack copied out alone still loads). */
export function readCatalogMessages(dir = shippedCatalogDir()): CatalogMessage[] {
  const messages: CatalogMessage[] = [];
  for (const name of CATALOG_FILES) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    for (const raw of (yamlModule().parse(readFileSync(file, 'utf8')) as RawEntry[] | null) ?? []) {
      const cause = Array.isArray(raw.cause) ? raw.cause[0] : raw.cause;
      const message: CatalogMessage = { id: raw.id, literal: String(raw.literal), kind: raw.kind, printed: printedOf(raw.printed_as) };
      if (cause !== undefined) message.cause = cause as Cause;
      const className = /^exception\s+(\S+)/.exec(raw.printed_as.trim())?.[1];
      if (className !== undefined) message.className = className.slice(className.lastIndexOf('.') + 1);
      messages.push(message);
    }
  }
  return messages;
}

let cached: readonly CatalogMessage[] | undefined;

/** The shipped catalog's messages: from the build's table, else read once from the YAML. */
export function catalogMessages(): readonly CatalogMessage[] {
  return (cached ??= precompiledTable()?.messages ?? readCatalogMessages());
}
