import type { AST } from '@eslint-community/regexpp';
import { regexParser } from './regex-parser.js';

/**
 * Literal extraction for the line prefilter. Each AST node is summarised by the
 * RE2-style "prefilter info": the node's full set of strings when small
 * (`exact`), what every match starts / ends with (`prefix` / `suffix`, `['']`
 * meaning unknown), and the best OR-set found inside it (`best`). A wrong
 * answer here silently disables a rule, so every step only ever drops
 * information, never guesses.
 */
type Lits = readonly string[];

interface Info {
  readonly exact: Lits | null;
  readonly prefix: Lits;
  readonly suffix: Lits;
  readonly best: Lits | null;
}

const MAX_SET = 16;
const MAX_CLASS = 4;
const MAX_REPEAT = 8;
const MIN_LEN = 3;
// Set for one requiredLiterals call (the analysis is synchronous): the shortest usable literal.
let minLength = MIN_LEN;
// Past about ten letters a literal is as good as unique in log text.
const SATURATION = 10;
const ANY: Info = { exact: null, prefix: [''], suffix: [''], best: null };
const EMPTY: Info = { exact: [''], prefix: [''], suffix: [''], best: null };


/**
 * Literals such that every line the pattern matches contains at least one of
 * them, or null when no such set of literals (each at least `minLength`
 * characters, default 3) exists and the rule must run on every line. With
 * `ignoreCase` the literals are lower-case and must be searched for in the
 * lower-cased line. A `minLength` of 2 finds `%|` for a bare tqdm bar: too
 * common to gate a rule on, still enough to prove a line cannot match.
 * Throws the parser's `RegExpSyntaxError` on an invalid pattern.
 */
export function requiredLiterals(source: string, options: { ignoreCase?: boolean; minLength?: number } = {}): string[] | null {
  const pattern = regexParser().parsePattern(source, 0, source.length, { unicode: false });
  minLength = options.minLength ?? MIN_LEN;
  try {
    const best = analyse(pattern, options.ignoreCase === true).best;
    return best === null ? null : [...best].sort();
  } finally {
    minLength = MIN_LEN;
  }
}

function analyse(node: AST.Node, fold: boolean): Info {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return group(node.alternatives, fold);
    case 'Assertion':
      if (node.kind !== 'lookahead' && node.kind !== 'lookbehind') return EMPTY;
      if (node.negate) return EMPTY;
      // A positive lookaround consumes nothing, but its text is in the line.
      return { ...EMPTY, best: group(node.alternatives, fold).best };
    case 'Quantifier':
      return quantifier(node, analyse(node.element, fold));
    case 'Character':
      return character(node.value, fold);
    case 'CharacterClass':
      return characterClass(node, fold);
    default:
      // Character sets (\d, \w, .), backreferences: any text, nothing known.
      return ANY;
  }
}

function group(alternatives: readonly AST.Alternative[], fold: boolean): Info {
  return alternation(alternatives.map((alt) => concat(alt.elements.map((e) => analyse(e, fold)))));
}

function character(code: number, fold: boolean): Info {
  // Case folding without the u flag never maps non-ASCII to ASCII, but
  // toLowerCase and the regex engine disagree on some non-ASCII letters
  // (final sigma), so under `i` only ASCII is trusted.
  if (fold && code > 0x7f) return ANY;
  const char = String.fromCharCode(fold ? asciiLower(code) : code);
  return exactInfo([char]);
}

function characterClass(node: AST.CharacterClass, fold: boolean): Info {
  if (node.negate) return ANY;
  const codes = new Set<number>();
  for (const element of node.elements) {
    if (element.type === 'Character') codes.add(element.value);
    else if (element.type === 'CharacterClassRange' && element.max.value - element.min.value < MAX_CLASS) {
      for (let c = element.min.value; c <= element.max.value; c++) codes.add(c);
    } else return ANY;
    if (codes.size > MAX_CLASS * 2) return ANY;
  }
  if (fold && [...codes].some((c) => c > 0x7f)) return ANY;
  const chars = new Set([...codes].map((c) => String.fromCharCode(fold ? asciiLower(c) : c)));
  return chars.size > MAX_CLASS ? ANY : exactInfo([...chars]);
}

function quantifier(node: AST.Quantifier, inner: Info): Info {
  if (node.max === 0) return EMPTY;
  if (inner.exact !== null && node.max <= MAX_REPEAT) {
    let exact: Lits | null = [];
    for (let n = node.min; n <= node.max && exact !== null; n++) {
      const rep = power(inner.exact, n);
      exact = rep === null ? null : capped(union([exact, rep]));
    }
    // Only a repetition that must happen brings the inner best along.
    if (exact !== null) return exactInfo(exact, node.min > 0 ? [inner.best] : []);
  }
  if (node.min === 0) return ANY;
  // x{n,} = x^n x* = x* x^n: the match both starts and ends with n copies.
  const edge = inner.exact === null ? null : power(inner.exact, node.min);
  return {
    exact: null,
    prefix: edge ?? inner.prefix,
    suffix: edge ?? inner.suffix,
    best: pick([inner.best, inner.exact, edge]),
  };
}

function concat(infos: readonly Info[]): Info {
  const candidates: (Lits | null)[] = infos.map((info) => info.best);
  let run: Lits[] = [];
  let prefix: Lits | null = null;
  for (const info of infos) {
    if (info.exact !== null) {
      run.push(info.exact);
      continue;
    }
    run.push(info.prefix);
    candidates.push(...subRuns(run));
    prefix ??= leading(run);
    run = [info.suffix];
  }
  candidates.push(...subRuns(run));
  if (prefix !== null) return { exact: null, prefix, suffix: trailing(run), best: pick(candidates) };
  const exact = leading(run, true);
  if (exact !== null) return exactInfo(exact, candidates);
  return { exact: null, prefix: leading(run), suffix: trailing(run), best: pick(candidates) };
}

function alternation(alts: readonly Info[]): Info {
  if (alts.length === 1) return alts[0]!;
  const exact = alts.every((a) => a.exact !== null) ? capped(union(alts.map((a) => a.exact!))) : null;
  const bests = alts.map((a) => a.best);
  const unionBest = bests.every((b) => b !== null) ? union(bests as Lits[]) : null;
  const best = pick([exact, unionBest]);
  if (exact !== null) return { exact, prefix: exact, suffix: exact, best };
  const prefix = capped(union(alts.map((a) => a.prefix))) ?? [''];
  const suffix = capped(union(alts.map((a) => a.suffix))) ?? [''];
  return { exact: null, prefix, suffix, best };
}

function exactInfo(exact: Lits, candidates: readonly (Lits | null)[] = []): Info {
  return { exact, prefix: exact, suffix: exact, best: pick([...candidates, exact]) };
}

/** Every contiguous stretch of an exact run is itself required; let pick() choose. */
function subRuns(run: readonly Lits[]): Lits[] {
  const merged = mergeSingletons(run);
  const out: Lits[] = [];
  for (let i = 0; i < merged.length; i++) {
    let acc: Lits | null = [''];
    for (let j = i; j < merged.length && acc !== null; j++) {
      acc = cross(acc, merged[j]!);
      if (acc !== null) out.push(acc);
    }
  }
  return out;
}

function mergeSingletons(run: readonly Lits[]): Lits[] {
  const out: Lits[] = [];
  for (const set of run) {
    const last = out[out.length - 1];
    if (set.length === 1 && last?.length === 1) out[out.length - 1] = [last[0]! + set[0]!];
    else out.push(set);
  }
  return out;
}

/** Product of the run from the left, stopping before it grows too large (or null if `whole`). */
function leading(run: readonly Lits[], whole: true): Lits | null;
function leading(run: readonly Lits[]): Lits;
function leading(run: readonly Lits[], whole = false): Lits | null {
  let acc: Lits = [''];
  for (const set of mergeSingletons(run)) {
    const next = cross(acc, set);
    if (next === null) return whole ? null : acc;
    acc = next;
  }
  return acc;
}

function trailing(run: readonly Lits[]): Lits {
  run = mergeSingletons(run);
  let acc: Lits = [''];
  for (let i = run.length - 1; i >= 0; i--) {
    const next = cross(run[i]!, acc);
    if (next === null) return acc;
    acc = next;
  }
  return acc;
}

function cross(a: Lits, b: Lits): Lits | null {
  if (a.length === 1 && b.length === 1) return [a[0]! + b[0]!];
  if (a.length * b.length > MAX_SET) return null;
  return union([a.flatMap((x) => b.map((y) => x + y))]);
}

function power(set: Lits, n: number): Lits | null {
  let acc: Lits | null = [''];
  for (let i = 0; i < n && acc !== null; i++) acc = cross(acc, set);
  return acc;
}

function union(sets: readonly Lits[]): Lits {
  return [...new Set(sets.flat())];
}

function capped(set: Lits): Lits | null {
  return set.length > MAX_SET ? null : set;
}

/** The usable candidate with the best score: long, distinctive, few. */
function pick(candidates: readonly (Lits | null)[]): Lits | null {
  let best: Lits | null = null;
  let bestScore = -Infinity;
  for (const candidate of candidates) {
    // minimal() keeps the shortest member, so a short one rules the set out cheaply.
    if (candidate === null || candidate.length === 0 || candidate.some((s) => s.length < minLength)) continue;
    const set = minimal(candidate);
    const score = Math.min(SATURATION, ...set.map(weight)) - 2 * Math.log2(set.length);
    if (score > bestScore || (score === bestScore && best !== null && fewerOrLonger(set, best))) {
      best = set;
      bestScore = score;
    }
  }
  return best;
}

function fewerOrLonger(a: Lits, b: Lits): boolean {
  if (a.length !== b.length) return a.length < b.length;
  return Math.min(...a.map((s) => s.length)) > Math.min(...b.map((s) => s.length));
}

/** Drops strings that contain another member: finding the shorter one is enough. */
function minimal(set: Lits): Lits {
  const unique = [...new Set(set)].sort((a, b) => a.length - b.length);
  return unique.filter((s, i) => !unique.some((t, j) => j < i && s.includes(t)));
}

/** Rough rarity of a literal in log text: letters beat digits, spaces and punctuation. */
function weight(literal: string): number {
  let sum = 0;
  for (let i = 0; i < literal.length; i++) {
    const c = literal.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) sum += 1.3;
    else if (c >= 0x61 && c <= 0x7a) sum += 1;
    else if (c === 0x20) sum += 0.3;
    else if (c >= 0x30 && c <= 0x39) sum += 0.5;
    else sum += 0.7;
  }
  return sum;
}

function asciiLower(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}
