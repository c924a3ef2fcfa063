import { RegExpParser, RegExpSyntaxError, visitRegExpAST, type AST } from '@eslint-community/regexpp';
import { analyse, type Report } from 'scslre';

export type PatternProblemCode =
  | 'regex/syntax'
  | 'regex/backreference'
  | 'regex/lookbehind'
  | 'regex/super-linear'
  | 'regex/empty-match';

/** A problem in a rule pattern; `offset` and `length` index into the pattern source. */
export interface PatternProblem {
  readonly code: PatternProblemCode;
  readonly message: string;
  readonly offset: number;
  readonly length: number;
}

// ES2024 is what Node 20's V8 accepts; 2025 would let through modifiers
// `(?i:...)` and duplicate group names that fail at compile time.
const parser = new RegExpParser({ ecmaVersion: 2024 });

/**
 * Checks a rule pattern the way rules compile it: no `u` flag, `i` only with
 * `ignoreCase`. Returns every problem found; an empty list means the pattern
 * is accepted.
 */
export function checkPattern(source: string, options: { ignoreCase?: boolean } = {}): PatternProblem[] {
  const flags = options.ignoreCase === true ? 'i' : '';
  let pattern: AST.Pattern;
  try {
    pattern = parser.parsePattern(source, 0, source.length, { unicode: false });
    // The engine that will run the pattern has the last word on its syntax.
    new RegExp(source, flags);
  } catch (error) {
    return [syntaxProblem(source, error)];
  }
  const problems = [...featureProblems(pattern, source), ...superLinearProblems(pattern, flags, source)];
  if (canMatchEmpty(pattern)) {
    problems.push({
      code: 'regex/empty-match',
      message: 'pattern can match the empty string, so it would match every line; make at least one part of it required (e.g. "+" instead of "*", no "?" on the only part)',
      offset: 0,
      length: source.length,
    });
  }
  return problems.sort((a, b) => a.offset - b.offset);
}

function syntaxProblem(source: string, error: unknown): PatternProblem {
  if (!(error instanceof RegExpSyntaxError)) {
    const detail = error instanceof Error ? error.message : String(error);
    return { code: 'regex/syntax', message: `${detail}; rewrite the pattern without it`, offset: 0, length: source.length };
  }
  const detail = error.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  const [offset, length] = errorSpan(source, Math.min(error.index, source.length), detail);
  return { code: 'regex/syntax', message: `${detail}; ${syntaxHint(source, offset, detail)}`, offset, length };
}

/** regexpp reports some errors after the offending token; point at the token itself. */
function errorSpan(source: string, index: number, detail: string): [number, number] {
  if (detail === 'Nothing to repeat') {
    let start = index - 1;
    if (source[start] === '}') start = source.lastIndexOf('{', start);
    return [start, index - start];
  }
  if (detail.startsWith('numbers out of order')) {
    const start = source.lastIndexOf('{', index);
    return [start, index - start];
  }
  if (detail.startsWith('Range out of order')) {
    const dash = source.lastIndexOf('-', index);
    const start = source[dash - 2] === '\\' ? dash - 2 : dash - 1;
    return [start, index - start];
  }
  if (detail === 'Duplicate capture group name') {
    const start = source.lastIndexOf('<', index) + 1;
    return [start, index - 1 - start];
  }
  if (detail === 'Invalid named capture referenced') {
    const defined = new Set([...source.matchAll(/\(\?<([^>=!]+)>/g)].map((m) => m[1]));
    const bad = [...source.matchAll(/\\k<([^>]*)>/g)].find((m) => !defined.has(m[1]));
    if (bad !== undefined) return [bad.index, bad[0].length];
  }
  return [index, index < source.length ? 1 : 0];
}

function syntaxHint(source: string, offset: number, detail: string): string {
  if (source.startsWith('(?P', offset - 1)) return 'Python named groups "(?P<name>" are written "(?<name>" in JavaScript';
  if (detail.includes('Unterminated group')) return 'add the missing ")" or escape a literal parenthesis as "\\("';
  if (detail.includes('Unmatched')) return 'remove the extra ")" or escape it as "\\)"';
  if (detail.includes('Nothing to repeat')) return 'escape a literal "*", "+", "?" or "{" with a backslash';
  if (detail.includes('capture group name')) return 'group names start with a letter, "$" or "_" and contain only letters, digits, "$" and "_"';
  if (detail.includes('at end of pattern')) return 'escape a trailing backslash as "\\\\"';
  return 'fix or escape the character at this position';
}

function featureProblems(pattern: AST.Pattern, source: string): PatternProblem[] {
  const problems: PatternProblem[] = [];
  const at = (node: AST.Node) => ({ offset: node.start, length: node.end - node.start });
  visitRegExpAST(pattern, {
    onBackreferenceEnter(node) {
      problems.push({
        code: 'regex/backreference',
        message: `backreference "${node.raw}" is not allowed: it defeats linear-time matching and literal prefiltering; repeat the group's pattern instead`,
        ...at(node),
      });
    },
    onAssertionEnter(node) {
      if (node.kind !== 'lookbehind') return;
      problems.push({
        code: 'regex/lookbehind',
        message: `lookbehind "${source.slice(node.start, node.end)}" is not allowed: it defeats literal prefiltering; match the text itself, or use a lookahead after it`,
        ...at(node),
      });
    },
    onCharacterEnter(node) {
      const problem = escapeProblem(node);
      if (problem !== null) problems.push({ code: 'regex/syntax', message: problem, ...at(node) });
    },
  });
  return problems;
}

/** Escapes that V8 accepts without the u flag but that almost always hide a mistake. */
function escapeProblem(node: AST.Character): string | null {
  const { raw, value } = node;
  // Annex B identity escape: `\p{L}` without the u flag is the text "p{L}".
  if (/^\\[A-Za-z]$/.test(raw) && value === raw.charCodeAt(1)) {
    return `"${raw}" is not an escape without the u flag and matches the letter "${raw[1]}"; remove the backslash, or use \\d, \\w or \\s`;
  }
  if (/^\\[1-9]/.test(raw)) {
    const code = `\\x${value.toString(16).padStart(2, '0')}`;
    return `"${raw}" refers to no group and matches the character ${code}; remove it, or write ${code} if you meant that character`;
  }
  return null;
}

function superLinearProblems(pattern: AST.Pattern, flags: string, source: string): PatternProblem[] {
  // Move reports (a leading unbounded quantifier rescanned at every start
  // position) are quadratic in the line length only; the line-length cap
  // bounds them, and rejecting them would reject most unanchored patterns.
  const { reports } = analyse({ pattern, flags: parser.parseFlags(flags) }, { reportTypes: { Move: false } });
  const seen = new Set<string>();
  const problems: PatternProblem[] = [];
  for (const report of reports) {
    const problem = superLinearProblem(report, source);
    const key = `${problem.offset}:${problem.length}:${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function superLinearProblem(report: Report, source: string): PatternProblem {
  const [a, b] = quantifiers(report);
  const offset = Math.min(a.start, b.start);
  const end = Math.max(a.end, b.end);
  const part = source.slice(offset, end);
  const growth = report.exponential ? 'exponential' : 'polynomial';
  const run = `a run of ${JSON.stringify(report.character.pick)}`;
  const cause =
    report.type === 'Self'
      ? `"${a.raw}" is repeated by "${b.raw}", so it can match ${run} in many ways`
      : `the quantifiers "${a.raw}" and "${b.raw}" can match the same text (${run})`;
  const fixed = report.fix();
  const fix =
    fixed === undefined
      ? 'make the quantified parts match different characters or merge them'
      : `rewrite it, e.g. as "${fixed.source}"`;
  return {
    code: 'regex/super-linear',
    message: `super-linear backtracking in "${part}": ${cause}, so a non-matching line costs ${growth} time; ${fix}`,
    offset,
    length: end - offset,
  };
}

function quantifiers(report: Report): [AST.Quantifier, AST.Quantifier] {
  switch (report.type) {
    case 'Trade':
      return [report.startQuant, report.endQuant];
    case 'Self':
      return [report.quant, report.parentQuant];
    case 'Move':
      return [report.quant, report.quant];
  }
}

function canMatchEmpty(node: AST.Node): boolean {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return node.alternatives.some((alt) => alt.elements.every(canMatchEmpty));
    case 'Quantifier':
      return node.min === 0 || canMatchEmpty(node.element);
    case 'Assertion':
    case 'Backreference':
      return true;
    default:
      return false;
  }
}
