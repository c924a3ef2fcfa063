import { describe, expect, it } from 'vitest';
import { checkPattern, type PatternProblemCode } from '../../src/pack/regex-check.js';

interface Expected {
  readonly source: string;
  readonly code: PatternProblemCode;
  /** The text at `offset`/`length` in the source. */
  readonly span: string;
  readonly offset: number;
  readonly message: RegExp;
}

describe('checkPattern', () => {
  it.for<Expected>([
    { source: 'Load (weight', code: 'regex/syntax', span: '', offset: 12, message: /^Unterminated group; add the missing "\)"/ },
    { source: 'Load weight)', code: 'regex/syntax', span: ')', offset: 11, message: /^Unmatched '\)'; remove the extra/ },
    { source: 'ends with \\', code: 'regex/syntax', span: '\\', offset: 10, message: /at end of pattern/ },
    { source: 'x(?<1st>\\d+)', code: 'regex/syntax', span: '1', offset: 4, message: /^Invalid capture group name; group names start with a letter/ },
    { source: 'rank (?P<rank>\\d+)', code: 'regex/syntax', span: '?', offset: 6, message: /Python named groups "\(\?P<name>" are written "\(\?<name>"/ },
    { source: 'a**', code: 'regex/syntax', span: '*', offset: 2, message: /^Nothing to repeat; escape a literal/ },
    { source: 'x{2,1}', code: 'regex/syntax', span: '{2,1}', offset: 1, message: /^numbers out of order/ },
    { source: 'GPU{0}{1}', code: 'regex/syntax', span: '{1}', offset: 6, message: /^Nothing to repeat/ },
    { source: '\\k<nope>(?<a>x)', code: 'regex/syntax', span: '\\k<nope>', offset: 0, message: /^Invalid named capture referenced/ },
    { source: 'x[z-a]', code: 'regex/syntax', span: 'z-a', offset: 2, message: /^Range out of order in character class/ },
    { source: 'x(?i:cuda)', code: 'regex/syntax', span: '?', offset: 2, message: /^Invalid group/ },
    { source: '(?<n>a)|(?<n>b)', code: 'regex/syntax', span: 'n', offset: 11, message: /Duplicate capture group name/ },
    { source: 'Unicode \\p{L}+', code: 'regex/syntax', span: '\\p', offset: 8, message: /^"\\p" is not an escape without the u flag and matches the letter "p"/ },
    { source: 'a\\1b', code: 'regex/syntax', span: '\\1', offset: 1, message: /^"\\1" refers to no group and matches the character \\x01/ },
    { source: '(a)\\1', code: 'regex/backreference', span: '\\1', offset: 3, message: /^backreference "\\1" is not allowed/ },
    { source: '(?<q>["\'])x\\k<q>', code: 'regex/backreference', span: '\\k<q>', offset: 11, message: /backreference "\\k<q>"/ },
    { source: '(?<=x)y', code: 'regex/lookbehind', span: '(?<=x)', offset: 0, message: /^lookbehind "\(\?<=x\)" is not allowed/ },
    { source: 'ok (?<!not )ready', code: 'regex/lookbehind', span: '(?<!not )', offset: 3, message: /lookbehind/ },
    { source: '(a+)+b', code: 'regex/super-linear', span: '(a+)+', offset: 0, message: /^super-linear backtracking in "\(a\+\)\+": "a\+" is repeated by "\(a\+\)\+".*exponential time/ },
    { source: 'x\\s*\\s*y', code: 'regex/super-linear', span: '\\s*\\s*', offset: 1, message: /^super-linear backtracking in "\\s\*\\s\*": the quantifiers "\\s\*" and "\\s\*" can match the same text \(a run of " "\), so a non-matching line costs polynomial time; rewrite it, e.g. as "x\\s\*y"/ },
    { source: 'took \\d+\\d+ s', code: 'regex/super-linear', span: '\\d+\\d+', offset: 5, message: /polynomial/ },
    { source: 'a*', code: 'regex/empty-match', span: 'a*', offset: 0, message: /can match the empty string, so it would match every line/ },
    { source: '(?:error)?', code: 'regex/empty-match', span: '(?:error)?', offset: 0, message: /empty string/ },
    { source: 'x|', code: 'regex/empty-match', span: 'x|', offset: 0, message: /empty string/ },
    { source: '^', code: 'regex/empty-match', span: '^', offset: 0, message: /empty string/ },
  ])('$source -> $code at $offset', ({ source, code, span, offset, message }) => {
    const problems = checkPattern(source);
    const problem = problems.find((p) => p.code === code);
    expect(problem, JSON.stringify(problems)).toBeDefined();
    expect(problem!.offset).toBe(offset);
    expect(source.slice(problem!.offset, problem!.offset + problem!.length)).toBe(span);
    expect(problem!.message).toMatch(message);
    expect(problem!.message).not.toContain('\n');
  });

  it('reports each super-linear part once, with its own span', () => {
    const problems = checkPattern('.*a.*a.*b');
    expect(problems.map((p) => [p.code, p.offset, p.length])).toEqual([
      ['regex/super-linear', 0, 5],
      ['regex/super-linear', 0, 8],
      ['regex/super-linear', 3, 5],
    ]);
  });

  it('stops at the syntax error (nothing else is meaningful)', () => {
    expect(checkPattern('(a)\\1(')).toEqual([expect.objectContaining({ code: 'regex/syntax', offset: 6 })]);
  });

  it('honours ignoreCase when looking for overlapping quantifiers', () => {
    expect(checkPattern('x[a-z]+[A-Z]+y')).toEqual([]);
    expect(checkPattern('x[a-z]+[A-Z]+y', { ignoreCase: true })).toEqual([expect.objectContaining({ code: 'regex/super-linear' })]);
  });

  it.for([
    'Load weight end\\.(?: elapsed=(?<el>[\\d.]+) s,)? type=(?<arch>\\w+),(?: dtype=(?<dtype>[\\w.]+),)?(?: [^,]*quant[^,]*,)?.*?avail mem=(?<avail>[\\d.]+) GB(?:, mem usage=(?<use>[\\d.]+) GB)?',
    'Capture (?:cuda|CUDA|CPU|prefill CUDA) graph failed: ',
    '(?:CUDA|HIP) out of memory',
    'Rank (?<rank>\\d+) scheduler (?:is dead|died during initialization)',
    '(?:(?<label>[\\w-]+) )?KV Cache (?:is allocated|VA upper bound)\\.',
    '\\bCapture (?<what>(?:[\\w-]+ )*?)(?:cuda|CUDA|cpu|CPU|NPU|XPU) graph begin\\b',
    '\\[Errno 98\\].*address already in use',
    'Model architectures? .* (?:are not supported for now|is not supported in-tree anymore)',
    'Loading (?:safetensors|pt|np_cache) checkpoint shards:\\s*(?<pct>\\d+)% Completed \\| (?<n>\\d+)/(?<tot>\\d+)',
    'Capturing CUDA graph(?:s| shapes)(?: \\((?<kind>[^,]+), (?<mode>\\w+)\\))?:\\s*(?<pct>\\d+)%',
    'Initializing an? (?:V[01] )?LLM engine \\(v(?<ver>[^)]+)\\) with config: ',
    'Subprocess (?<name>\\S+) \\(pid=(?<pid>\\d+)\\) crashed with exit code (?<code>-?\\d+)',
    'Watchdog caught collective operation timeout(?=: WorkNCCL)',
    '^\\[(?<date>\\d{4}-\\d{2}-\\d{2}) (?<time>\\d{2}:\\d{2}:\\d{2})(?:\\.(?<ms>\\d{3}))?\\]',
    'non-default args: \\{',
    'a+b',
  ])('accepts %s', (source) => {
    expect(checkPattern(source)).toEqual([]);
  });

  it('accepts case-insensitive patterns', () => {
    expect(checkPattern('traceback \\(most recent call last\\)', { ignoreCase: true })).toEqual([]);
  });
});
