/**
 * The servers' own messages for the classifier (core/message-catalog.ts), read from the shipped
 * catalog/*.yaml: the build keeps them in its precompiled table, so a start parses no YAML for
 * them; without a build (tests from sources) they are read from the YAML once per process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesACause, type CatalogMessage, type MessageKind } from '../core/message-catalog.js';
import type { Cause } from '../core/vocabulary.js';
import { precompiledTable } from './precompiled-packs.js';
import { yamlModule } from './yaml-module.js';

/** `catalog/` of this installation (next to `dist/` or `src/`, beside `rules/`). */
export function shippedCatalogDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'catalog');
}

/** The catalog's files, one per layer: the servers and the platform under them. */
export const CATALOG_LAYERS = ['vllm', 'sglang', 'platform'] as const;
export type CatalogLayer = (typeof CATALOG_LAYERS)[number];

/** One entry as the catalog's YAML holds it (see catalog/README.md). */
export interface RawCatalogEntry {
  id: string;
  literal: unknown;
  example: unknown;
  printed_as: string;
  where?: string;
  stage?: string | null;
  kind: MessageKind;
  cause?: string | string[];
}

/** The entries of one layer's file; a missing file reads as none (a pack copied out alone still loads). */
export function readCatalogFile(dir: string, layer: CatalogLayer): RawCatalogEntry[] {
  const file = join(dir, `${layer}.yaml`);
  if (!existsSync(file)) return [];
  return (yamlModule().parse(readFileSync(file, 'utf8')) as RawCatalogEntry[] | null) ?? [];
}

/** `exception torch.OutOfMemoryError` -> `torch.OutOfMemoryError`; undefined for logged, printed and native lines. */
export function printedClass(printedAs: string): string | undefined {
  return /^exception\s+(\S+)/.exec(printedAs.trim())?.[1];
}

/** `exception X` -> exception, `log error` -> error, ... */
function printedOf(printedAs: string): CatalogMessage['printed'] {
  const [how, level] = printedAs.trim().split(/\s+/);
  if (how === 'exception') return 'exception';
  if (how === 'log') return level === 'error' || level === 'warning' || level === 'info' ? level : 'error';
  return how === 'print' ? 'print' : 'native';
}

/** Reads the catalog's files, keeping the messages the classifier reads (`namesACause`). */
export function readCatalogMessages(dir = shippedCatalogDir()): CatalogMessage[] {
  const messages: CatalogMessage[] = [];
  for (const layer of CATALOG_LAYERS) {
    for (const raw of readCatalogFile(dir, layer)) {
      const cause = Array.isArray(raw.cause) ? raw.cause[0] : raw.cause;
      const message: CatalogMessage = { id: raw.id, literal: String(raw.literal), kind: raw.kind, printed: printedOf(raw.printed_as) };
      if (cause !== undefined) message.cause = cause as Cause;
      const className = printedClass(raw.printed_as);
      if (className !== undefined) message.className = className.slice(className.lastIndexOf('.') + 1);
      if (namesACause(message)) messages.push(message);
    }
  }
  return messages;
}

let cached: readonly CatalogMessage[] | undefined;

/** The shipped catalog's messages: from the build's table, else read once from the YAML. */
export function catalogMessages(): readonly CatalogMessage[] {
  return (cached ??= precompiledTable()?.messages ?? readCatalogMessages());
}
