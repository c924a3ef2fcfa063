/**
 * The message catalog (catalog/*.yaml): what the servers and the layers under them can print,
 * one entry per message, read from their source. The conformance suite turns every entry into
 * a test case; see catalog/README.md for what each field means and how far it can be trusted.
 */
import type { MessageKind } from '../core/message-catalog.js';
import type { Cause, Stage } from '../core/vocabulary.js';
import { CATALOG_LAYERS, printedClass, readCatalogFile, type CatalogLayer, type RawCatalogEntry } from '../pack/catalog-messages.js';

export { CATALOG_LAYERS, type CatalogLayer };
export type EntryKind = MessageKind;

export interface CatalogEntry {
  id: string;
  literal: string;
  example: string;
  /** `exception ValueError`, `log error`, `log warning`, `log info`, `print`, `native`. */
  printedAs: string;
  /** `repo@ref:path:line`: where the source prints it. */
  where: string;
  stage?: Stage;
  kind: EntryKind;
  /** Any member is right. Empty for survivable entries. */
  causes: Cause[];
  /** The file it came from: `vllm`, `sglang` or `platform`. */
  layer: CatalogLayer;
}

export function readCatalog(dir: string, layers: readonly CatalogLayer[] = CATALOG_LAYERS): CatalogEntry[] {
  return layers.flatMap((layer) => readCatalogFile(dir, layer).map((entry) => toEntry(entry, layer)));
}

function toEntry(raw: RawCatalogEntry, layer: CatalogLayer): CatalogEntry {
  const causes = raw.cause === undefined ? [] : Array.isArray(raw.cause) ? raw.cause : [raw.cause];
  return {
    id: raw.id,
    literal: String(raw.literal),
    example: String(raw.example),
    printedAs: raw.printed_as.trim(),
    where: raw.where ?? '',
    stage: raw.stage && raw.stage !== 'None' ? (raw.stage as Stage) : undefined,
    kind: raw.kind,
    causes: causes as Cause[],
    layer,
  };
}

/** `exception torch.OutOfMemoryError` -> `torch.OutOfMemoryError`; undefined for logged and native lines. */
export function exceptionClass(entry: Pick<CatalogEntry, 'printedAs'>): string | undefined {
  return printedClass(entry.printedAs);
}
