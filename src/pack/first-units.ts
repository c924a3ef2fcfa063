import type { AST } from '@eslint-community/regexpp';
import { regexParser } from './regex-parser.js';

/**
 * The code units a non-empty match of a pattern can begin with, read from its syntax tree: the
 * prefix peeler skips a prefix pattern at once when the frame starts with anything else (most
 * prefixes start with `[` or a digit). Null when any unit may begin a match or the set is large.
 * Only ever over-approximates: a unit left out can never start a match.
 */
export function firstUnits(pattern: string, options: { ignoreCase?: boolean } = {}): string | null {
  const ast = regexParser().parsePattern(pattern, 0, pattern.length, { unicode: false });
  const { units } = first(ast, options.ignoreCase === true);
  if (units === ANY || units.size > MAX_UNITS) return null;
  return String.fromCharCode(...[...units].sort((a, b) => a - b));
}

const MAX_UNITS = 128;
const ANY = 'any' as const;
type Units = Set<number> | typeof ANY;

interface First {
  units: Units;
  /** The node can match the empty string, so what follows it can begin the match too. */
  nullable: boolean;
}

const NOTHING: First = { units: new Set(), nullable: true };

function first(node: AST.Node, fold: boolean): First {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return alternatives(node.alternatives, fold);
    case 'Alternative':
      return sequence(node.elements, fold);
    case 'Assertion':
      // `^`, `$`, `\b` and lookarounds consume nothing.
      return NOTHING;
    case 'Quantifier': {
      if (node.max === 0) return NOTHING;
      const inner = first(node.element, fold);
      return { units: inner.units, nullable: inner.nullable || node.min === 0 };
    }
    case 'Character':
      return { units: withCase([node.value], fold), nullable: false };
    case 'CharacterClass':
      return { units: characterClass(node, fold), nullable: false };
    case 'CharacterSet':
      return { units: characterSet(node), nullable: false };
    default:
      // Backreferences (possibly empty) and anything unforeseen: assume the worst.
      return { units: ANY, nullable: true };
  }
}

function alternatives(alts: readonly AST.Alternative[], fold: boolean): First {
  let units: Units = new Set();
  let nullable = false;
  for (const alt of alts) {
    const f = sequence(alt.elements, fold);
    units = union(units, f.units);
    nullable ||= f.nullable;
  }
  return { units, nullable };
}

function sequence(elements: readonly AST.Element[], fold: boolean): First {
  let units: Units = new Set();
  for (const element of elements) {
    const f = first(element, fold);
    units = union(units, f.units);
    if (!f.nullable || units === ANY) return { units, nullable: false };
  }
  return { units, nullable: true };
}

function characterClass(node: AST.CharacterClass, fold: boolean): Units {
  if (node.negate) return ANY;
  let units: Units = new Set();
  for (const element of node.elements) {
    if (element.type === 'Character') units = union(units, withCase([element.value], fold));
    else if (element.type === 'CharacterClassRange') {
      if (element.max.value - element.min.value > MAX_UNITS) return ANY;
      const range: number[] = [];
      for (let c = element.min.value; c <= element.max.value; c++) range.push(c);
      units = union(units, withCase(range, fold));
    } else if (element.type === 'CharacterSet') units = union(units, characterSet(element));
    else return ANY;
    if (units === ANY) return ANY;
  }
  return units;
}

const DIGITS = range(0x30, 0x39);
const WORD = [...DIGITS, ...range(0x41, 0x5a), 0x5f, ...range(0x61, 0x7a)];
// ECMAScript WhiteSpace and LineTerminator, all of them.
const SPACE = [9, 10, 11, 12, 13, 32, 0xa0, 0x1680, ...range(0x2000, 0x200a), 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];

function characterSet(node: AST.CharacterSet): Units {
  if (node.kind === 'digit' && !node.negate) return new Set(DIGITS);
  if (node.kind === 'word' && !node.negate) return new Set(WORD);
  if (node.kind === 'space' && !node.negate) return new Set(SPACE);
  return ANY;
}

/** Under `i` (no `u` flag) an ASCII letter matches its other ASCII case only; other letters: unknown. */
function withCase(codes: readonly number[], fold: boolean): Units {
  const units = new Set<number>();
  for (const code of codes) {
    units.add(code);
    if (!fold) continue;
    const lower = String.fromCharCode(code).toLowerCase();
    const upper = String.fromCharCode(code).toUpperCase();
    if (code > 0x7f && (lower !== upper || lower.charCodeAt(0) !== code)) return ANY;
    if (code >= 0x41 && code <= 0x5a) units.add(code + 0x20);
    if (code >= 0x61 && code <= 0x7a) units.add(code - 0x20);
  }
  return units;
}

function union(a: Units, b: Units): Units {
  if (a === ANY || b === ANY) return ANY;
  const out = new Set(a);
  for (const unit of b) out.add(unit);
  return out;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let c = from; c <= to; c++) out.push(c);
  return out;
}
