/**
 * The cause-inference layer: an exception no failure rule names still says what went wrong,
 * through its words, its class or the library it was raised in. The tables are pack data
 * (`inference:`), consulted most specific first: words, then class, then package, then the
 * words so common (`must be`) that they speak only when nothing more specific does.
 */
import type { CompiledInference, CompiledInferenceTables, CompiledRule } from './pack-types.js';

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
