/**
 * The cause-inference layer: an exception no failure rule names still says what went wrong,
 * through its words, its class or the library it was raised in. Consulted most specific first:
 * the servers' own messages (the catalog: the very text the source raises), then the pack's
 * tables (`inference:`): words, class, package, and last the words so common (`must be`) that
 * they speak only when nothing more specific does.
 */
import { classFits, type CatalogMessage } from './message-catalog.js';
import type { CompiledInference, CompiledInferenceTables, CompiledRule } from './pack-types.js';
import type { Cause } from './vocabulary.js';

export interface InferenceInput {
  /** `torch.OutOfMemoryError`, `ValueError`. */
  className: string;
  /** The exception's message and the continuation lines read so far. */
  words: string;
  /** File of the innermost traceback frame, when the traceback showed one. */
  frameFile?: string;
}

/** The entry that names the cause, or undefined when the tables know nothing about this exception. */
export function inferCause(tables: CompiledInferenceTables, input: InferenceInput): CompiledInference | undefined {
  return (
    raisedMessageCause(tables, input.words, input.className) ??
    tables.words.find((entry) => entry.regex.test(input.words)) ??
    tables.classes.find((entry) => entry.regex.test(input.className)) ??
    (input.frameFile === undefined ? undefined : tables.packages.find((entry) => entry.regex.test(input.frameFile!))) ??
    tables.fallback_words.find((entry) => entry.regex.test(input.words))
  );
}

/** An exception that only reports another process's death (its class is in the `symptoms` table). */
export function symptomClass(tables: CompiledInferenceTables, className: string): CompiledRule | undefined {
  return tables.symptoms.find((rule) => rule.regex.test(className));
}

/** Generic advice printed after an exception (SGLang's `--mem-fraction-static` tips): not its words. */
export function isRemedy(tables: CompiledInferenceTables, body: string): boolean {
  return tables.remedies.some((rule) => rule.regex.test(body));
}

/**
 * An exception whose message says nothing a reader could act on: a bare class, or only an enum
 * code (`nixlBackendError: NIXL_ERR_BACKEND`). Native error lines just before it say more.
 */
export function isOpaque(message: string): boolean {
  const text = message.trim();
  return text === '' || /^[A-Z][A-Z0-9_]*(?: \(-?\d+\))?$/.test(text);
}

/**
 * An exception names its cause through a fatal message the source raises: not a logged line's
 * words caught in its continuation, not a wrapper that only restates a death (a symptom).
 */
const raisedFatal =
  (className: string) =>
  (message: CatalogMessage): boolean =>
    message.kind === 'fatal' && message.printed === 'exception' && message.cause !== undefined && classFits(message, className);

/**
 * The catalog message these words are an instance of, as an inference entry: its cause, with the
 * pack's own words for that cause (the first inference entry naming it) as message and hint.
 */
export function raisedMessageCause(tables: CompiledInferenceTables, words: string, className: string): CompiledInference | undefined {
  const message = tables.messages.find(words, raisedFatal(className));
  return message && messageInference(tables, message);
}

const inferences = new WeakMap<CatalogMessage, CompiledInference>();

export function messageInference(tables: CompiledInferenceTables, message: CatalogMessage): CompiledInference {
  let entry = inferences.get(message);
  if (entry === undefined) {
    const text = causeText(tables, message.cause!);
    entry = { id: `catalog/${message.id}`, pack: 'catalog', kind: 'inference', regex: NEVER, description: 'a message of the catalog', order: -1, table: 'words', cause: message.cause!, message: text.message, hint: text.hint };
    inferences.set(message, entry);
  }
  return entry;
}

const NEVER = /(?!)/;
const GENERIC = { message: 'the server raised an error its source makes fatal', hint: 'Read the message: it is the server\'s own words for what went wrong.' };

function causeText(tables: CompiledInferenceTables, cause: Cause): { message: string; hint: string } {
  for (const table of [tables.words, tables.classes, tables.packages, tables.fallback_words]) {
    const entry = table.find((e) => e.cause === cause);
    if (entry) return { message: entry.message, hint: entry.hint };
  }
  return GENERIC;
}
