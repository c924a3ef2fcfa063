/**
 * The literal prefilter: one scan of a frame finds the few rules that could match it, so almost
 * every line of a large log is rejected before any regular expression runs.
 *
 * Every rule pattern requires some literal text (`Load weight begin. avail mem=`, one of
 * `CUDA error` / `NCCL error`); the pack layer extracts it from the pattern's syntax tree at load
 * time and hands it in as data (`LiteralsOf`), so this module stays pure. A rule whose literals
 * are unknown (`null`) runs on every frame. Soundness: a rule is skipped only when none of its
 * literals occurs in the frame, and then its pattern cannot match. Which rules match, and in
 * which order, is therefore exactly what running every rule would give.
 */
import { LiteralScanner } from './literal-scanner.js';
import { LINE_KINDS } from './rule-kinds.js';

/**
 * Literals one of which occurs in every text the pattern matches (lower-case, to be found in the
 * lower-cased text, when `ignoreCase`), or null when no such set is known.
 */
export type LiteralsOf = (pattern: string, ignoreCase: boolean) => readonly string[] | null;

/** The rules `matchFrame` runs: per line kind (by its place in LINE_KINDS), its rules in pack order. */
export interface RuleSet {
  lists: readonly (readonly unknown[])[];
  /** How many rules in all (most frames: none). */
  size: number;
}

/** The literals that gate one pattern (`null`: it always runs). */
export interface Gate {
  literals: readonly string[] | null;
  ignoreCase: boolean;
  /** For a pattern without `literals`: shorter required literals (`%|`), used only to prove a line quiet. */
  short?: readonly string[] | null;
}

/**
 * Which literals a line must lack to change nothing, by what the current run has decided
 * (`Classifier.quietScope`). Benign rules are left out: a benign match only silences failure
 * rules and a traceback's exception, and a quiet line has neither.
 */
export interface QuietLiterals {
  /** Always: restart markers (a new run) and progress bars (their elapsed time moves the clock). */
  always: string[];
  /** After a ready verdict too: fatal failures (the after-ready alarm). */
  afterReady: string[];
  /** Before a verdict too: every other rule, ready confirmations included. */
  beforeVerdict: string[];
  /** The restart markers' literals alone (they are in `always` too): all that can start a new run. */
  restart: string[];
}

export type QuietScope = 'always' | 'afterReady' | 'beforeVerdict';

interface Entry {
  /** The line kind's place in LINE_KINDS. */
  list: number;
  item: unknown;
}

/** Literals of one case mode, deduplicated, with the entries each one gates. */
class LiteralIndex {
  readonly literals: string[] = [];
  readonly owners: number[][] = [];
  private readonly slots = new Map<string, number>();

  add(literal: string, entry: number): void {
    let slot = this.slots.get(literal);
    if (slot === undefined) {
      slot = this.literals.push(literal) - 1;
      this.slots.set(literal, slot);
      this.owners.push([]);
    }
    this.owners[slot]!.push(entry);
  }

  scanner(): LiteralScanner | undefined {
    return this.literals.length > 0 ? new LiteralScanner(this.literals) : undefined;
  }
}

export class RulePrefilter {
  /** Rules that run on every frame (their literals are unknown). */
  readonly alwaysRun: number;
  /** Distinct literals searched for. */
  readonly literalCount: number;
  private readonly entries: Entry[] = [];
  /** Per entry: the literals it requires (short ones included), undefined when unknown or case-folded. */
  private readonly required: (readonly string[] | undefined)[] = [];
  private readonly always: number[] = [];
  private readonly cased = new LiteralIndex();
  private readonly folded = new LiteralIndex();
  /** Built on the first frame: of the packs loaded to detect a family, only one is ever used. */
  private scanners: { cased?: LiteralScanner; folded?: LiteralScanner } | undefined;
  /** What a frame without any literal runs: the always-run rules. Shared, never mutated. */
  private readonly quiet: RuleSet;
  /** Per-entry stamp of the frame that last selected it (dedupes without a Set per frame). */
  private readonly picked: Uint32Array;
  private stamp = 0;
  /** Rule sets already built, by the literals found. */
  private readonly seen = new Map<string, RuleSet>();

  /** `lists`: each line kind's rules (LineKind.rules), in the order of LINE_KINDS. */
  /**
   * `alsoLoud`: literals of lines that are no rule's but still matter before a verdict (the
   * catalog's fatal lines, core/message-catalog.ts `MessageIndex.lineLiterals`).
   */
  constructor(
    lists: readonly (readonly unknown[])[],
    gateOf: (regex: RegExp) => Gate,
    private readonly alsoLoud: readonly string[] = [],
  ) {
    const { cased, folded } = this;
    for (const [list, items] of lists.entries()) {
      const kind = LINE_KINDS[list]!;
      for (const item of items) {
        const index = this.entries.push({ list, item }) - 1;
        const { literals, ignoreCase, short } = gateOf(kind.regexOf(item));
        const required = literals ?? short;
        this.required.push(required && required.length > 0 && !ignoreCase ? required : undefined);
        if (literals === null || literals.length === 0) this.always.push(index);
        else for (const literal of literals) (ignoreCase ? folded : cased).add(literal, index);
      }
    }
    this.picked = new Uint32Array(this.entries.length);
    this.quiet = this.build(this.always);
    this.alwaysRun = this.always.length;
    this.literalCount = cased.literals.length + folded.literals.length;
  }

  /**
   * Every literal a line must lack for no rule but a benign one to match it, grouped by scope;
   * undefined when some rule's literals are unknown or case-folded (no line can be proven quiet).
   */
  quietLiterals(): QuietLiterals | undefined {
    const quiet: QuietLiterals = { always: [], afterReady: [], beforeVerdict: [], restart: [] };
    for (const [index, { list, item }] of this.entries.entries()) {
      const kind = LINE_KINDS[list]!;
      // A silent kind's hit changes nothing on its own.
      if (kind.scope === undefined) continue;
      const literals = this.required[index];
      if (literals === undefined) return undefined;
      quiet[kind.scope(item)].push(...literals);
      if (kind.restarts?.(item)) quiet.restart.push(...literals);
    }
    quiet.beforeVerdict.push(...this.alsoLoud);
    return quiet;
  }

  /** The rules that may match `text`: those whose literals occur in it, and the always-run ones. */
  select(text: string): RuleSet {
    const scanners = (this.scanners ??= { cased: this.cased.scanner(), folded: this.folded.scanner() });
    const cased = scanners.cased ? scanners.cased.scan(text) : NONE;
    const folded = scanners.folded ? scanners.folded.scan(text.toLowerCase()) : NONE;
    if (cased.length === 0 && folded.length === 0) return this.quiet;
    // Noisy lines repeat a few literal combinations (`NCCL INFO `, `"GET /`): build each set once.
    const key = folded.length === 0 ? cased.join() : `${cased.join()}|${folded.join()}`;
    let set = this.seen.get(key);
    if (set === undefined) {
      set = this.union(cased, folded);
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.set(key, set);
    }
    return set;
  }

  private union(cased: readonly number[], folded: readonly number[]): RuleSet {
    const stamp = this.nextStamp();
    const chosen = [...this.always];
    for (const index of this.always) this.picked[index] = stamp;
    this.collect(cased, this.cased.owners, stamp, chosen);
    this.collect(folded, this.folded.owners, stamp, chosen);
    return this.build(chosen.sort((a, b) => a - b));
  }

  private collect(found: readonly number[], owners: readonly number[][], stamp: number, chosen: number[]): void {
    for (const literal of found) {
      for (const index of owners[literal]!) {
        if (this.picked[index] === stamp) continue;
        this.picked[index] = stamp;
        chosen.push(index);
      }
    }
  }

  /** A rule set of the given entries, which are in pack order. */
  private build(indices: readonly number[]): RuleSet {
    const lists: unknown[][] = LINE_KINDS.map(() => []);
    for (const index of indices) {
      const entry = this.entries[index]!;
      lists[entry.list]!.push(entry.item);
    }
    return { lists, size: indices.length };
  }

  private nextStamp(): number {
    if (this.stamp === 0xffffffff) {
      this.picked.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

const NONE: readonly number[] = [];
const MAX_SEEN = 1024;
