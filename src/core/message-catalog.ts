/**
 * The servers' own messages, as their source prints them (catalog/*.yaml, read by the pack
 * layer): a fixed fragment of each message, what kind of message it is and what cause it names.
 * An exception or error line whose words hold one of these fragments is that message: its cause
 * is the source's, not a guess from a class name or a package path.
 *
 * Looked up only on lines that are already root-cause candidates (an exception, an error-level
 * line), through an index by the longest word of each fragment, so a lookup costs a few map
 * reads whatever the size of the catalog.
 */
import { LiteralScanner } from './literal-scanner.js';
import { isCalm, isWarning } from './severity.js';
import type { Cause } from './vocabulary.js';

export type MessageKind = 'fatal' | 'survivable' | 'symptom' | 'fatal_if_exception_follows';

export interface CatalogMessage {
  id: string;
  /** A verbatim fixed fragment of the printed text. */
  literal: string;
  kind: MessageKind;
  /** The first cause the catalog names (absent for survivable messages). */
  cause?: Cause;
  /** How the source prints it: `exception`, `error`, `warning`, `info`, `print` or `native`. */
  printed: 'exception' | 'error' | 'warning' | 'info' | 'print' | 'native';
  /** For an exception: its class without the module (`OutOfMemoryError`). */
  className?: string;
}

/** A fragment this long names one message; a shorter one (`No module named`) only with its exception class. */
export const SPECIFIC_LITERAL = 25;

/** Whether an exception of class `className` (as printed, with its module) may be this message. */
export function classFits(message: CatalogMessage, className: string): boolean {
  if (message.literal.length >= SPECIFIC_LITERAL || message.className === undefined) return true;
  const printed = className.slice(className.lastIndexOf('.') + 1);
  // A config dataclass's ValueError is printed by pydantic as a ValidationError (vLLM >= 0.10).
  return printed === message.className || (printed === 'ValidationError' && message.className === 'ValueError');
}

const WORDS = /[A-Za-z][A-Za-z0-9_]{4,}/g;

/**
 * The messages the classifier reads: those that can name a cause (fatal, or fatal once an
 * exception follows). Survivable messages and symptoms are the rules' business (benign rules,
 * wrappers) and the conformance suite's, not a lookup's.
 */
export function namesACause(message: CatalogMessage): boolean {
  return (message.kind === 'fatal' || message.kind === 'fatal_if_exception_follows') && message.cause !== undefined;
}

export class MessageIndex {
  /** Built on the first lookup: most starts look nothing up, and a cold start should not pay for it. */
  private byWord: Map<string, CatalogMessage[]> | undefined;
  /** Messages with no word long enough to index: checked on every lookup (few). */
  private readonly unindexed: CatalogMessage[] = [];

  /** A scanner of `lineLiterals`, to reject a line without one at once. */
  private lineScanner: LiteralScanner | null | undefined;

  /**
   * The fragments `lineMessage` can find: a line holding one of them must be read (the fast path
   * may not skip it: compile-pack hands them to the prefilter).
   */
  readonly lineLiterals: readonly string[];

  constructor(readonly messages: readonly CatalogMessage[]) {
    this.lineLiterals = messages.filter(namesLineCause).map((m) => m.literal);
  }

  /** Whether `text` may hold a line message: false means it surely holds none. */
  mayHoldLineMessage(text: string): boolean {
    this.lineScanner ??= this.lineLiterals.length === 0 ? null : new LiteralScanner(this.lineLiterals);
    return this.lineScanner !== null && this.lineScanner.hasAny(text);
  }

  private index(): Map<string, CatalogMessage[]> {
    const byWord = new Map<string, CatalogMessage[]>();
    for (const message of this.messages) {
      const word = keyWord(message.literal);
      if (word === undefined) {
        this.unindexed.push(message);
        continue;
      }
      const list = byWord.get(word);
      if (list) list.push(message);
      else byWord.set(word, [message]);
    }
    return byWord;
  }

  /**
   * The message `text` is an instance of: of those whose fragment it holds, the longest fragment
   * (the most specific message); undefined when it holds none.
   */
  find(text: string, accept: (message: CatalogMessage) => boolean = () => true): CatalogMessage | undefined {
    const byWord = (this.byWord ??= this.index());
    let best: CatalogMessage | undefined;
    const consider = (message: CatalogMessage): void => {
      if ((best === undefined || message.literal.length > best.literal.length) && text.includes(message.literal) && accept(message)) best = message;
    };
    for (const match of text.matchAll(WORDS)) {
      const list = byWord.get(match[0]);
      if (list) for (const message of list) consider(message);
    }
    for (const message of this.unindexed) consider(message);
    return best;
  }
}

/**
 * The longest word of a fragment that the printed text tokenizes the same way: one with a
 * non-word character on each side inside the fragment (its edge words may be cut mid-word).
 */
function keyWord(literal: string): string | undefined {
  let best: string | undefined;
  for (const m of literal.matchAll(WORDS)) {
    const before = literal[m.index - 1];
    const inner = before !== undefined && !/\w/.test(before) && m.index + m[0].length < literal.length;
    if (inner && (best === undefined || m[0].length > best.length)) best = m[0];
  }
  return best;
}

/** NCCL's own level word, inside its native line (`host:pid:tid [0] NCCL INFO ...`). */
const NCCL_INFO = 'NCCL INFO ';
/** A line message's fragment must be at least this long: a line has no exception class to confirm a short one. */
const MIN_LINE_LITERAL = 15;

/**
 * The message a line that is not an exception prints, when the catalog says it names a cause:
 * a fatal native, printed or logged error line (the process dies after it), or a line that is
 * fatal once an exception follows. Its level must agree: a calm line never; a warning only for a
 * message the source logs as one.
 */
export function lineMessage(index: MessageIndex, body: string, level: string | undefined): CatalogMessage | undefined {
  // A calm line (a logged INFO line may quote an error) is never one.
  if (isCalm(level) || body.includes(NCCL_INFO) || !index.mayHoldLineMessage(body)) return undefined;
  const warning = isWarning(level);
  return index.find(body, (m) => namesLineCause(m) && (!warning || m.printed === 'warning' || m.kind === 'fatal_if_exception_follows'));
}

/**
 * A line message that names a cause of its own: a fatal line that is no exception (a fatal
 * exception closes a traceback and is read there), or any line that explains an exception after
 * it (an exception caught, printed and followed by another counts); never one that only says a
 * process died (`Traceback (most recent call last):`, cause crash).
 */
function namesLineCause(m: CatalogMessage): boolean {
  const kind = m.kind === 'fatal_if_exception_follows' || (m.kind === 'fatal' && m.printed !== 'exception');
  return kind && m.literal.length >= MIN_LINE_LITERAL && m.cause !== undefined && m.cause !== 'crash' && m.cause !== 'unknown';
}
