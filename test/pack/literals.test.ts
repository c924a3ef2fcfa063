import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { describe, expect, it } from 'vitest';
import { requiredLiterals } from '../../src/pack/literals.js';
import { randomFloats as rng } from '../hostile/random.js';

interface Case {
  readonly pattern: string;
  readonly ignoreCase?: boolean;
}

// Taken from the regex columns of the SGLang and vLLM startup catalogs
// (Python `(?P<name>` rewritten to `(?<name>`), plus a few case-insensitive ones.
const CATALOG: readonly Case[] = [
  { pattern: String.raw`sglang serve' is the recommended entrypoint` },
  { pattern: String.raw`server_args=ServerArgs\(` },
  { pattern: String.raw`^(Attention backend not (?:explicitly )?specified|Cuda graph is disabled because)` },
  { pattern: String.raw`Launch DP(?<dp>\d+) starting at GPU #(?<gpu>\d+)` },
  { pattern: String.raw`Init torch distributed begin\.` },
  { pattern: String.raw`Init torch distributed ends\.(?: elapsed=(?<s>[\d.]+) s,)? mem usage=(?<gb>-?[\d.]+) GB` },
  { pattern: String.raw`(?:NCCL|RCCL|HCCL)(?:/\w+)* warmup completed in` },
  { pattern: String.raw`(?:\[gpu_id=\d+\] )?Load weight begin\. avail mem=(?<avail>[\d.]+) GB` },
  { pattern: String.raw`Loading (?:safetensors|pt|np_cache) checkpoint shards(?: \(eager\))?:\s*(?<pct>\d+)% Completed \| (?<n>\d+)/(?<tot>\d+)` },
  { pattern: String.raw`Load weight end\.(?: elapsed=(?<el>[\d.]+) s,)? type=(?<arch>\w+),(?: dtype=(?<dtype>[\w.]+),)?(?: [^,]*quant[^,]*,)?.*?avail mem=(?<avail>[\d.]+) GB(?:, mem usage=(?<use>[\d.]+) GB)?` },
  { pattern: String.raw`(?:(?<label>[\w-]+) )?KV Cache (?:is allocated|VA upper bound)\.(?: dtype: (?<dtype>\S+),)?(?: #tokens: (?<tok>\d+),)? (?:K size: (?<k>[\d.]+) GB, V size: (?<v>[\d.]+) GB|KV size: (?<kv>[\d.]+) GB)` },
  { pattern: String.raw`(?:\[gpu_id=\d+\] )?Memory pool end\. avail mem=(?<avail>[\d.]+) GB` },
  { pattern: String.raw`\bCapture (?<what>(?:[\w-]+ )*?)(?:cuda|CUDA|cpu|CPU|NPU|XPU) graph begin\b` },
  { pattern: String.raw`Capture (?:cuda|CUDA|CPU|prefill CUDA) graph failed: ` },
  { pattern: String.raw`Scheduler hit an exception: ` },
  { pattern: String.raw`Received sigquit from a child proces` },
  { pattern: String.raw`Rank (?<rank>\d+) scheduler (?:is dead|died during initialization)` },
  { pattern: String.raw`Rank (?<rank>\d+) scheduler died during initialization \(exit code: (?<code>-?\d+)\)` },
  { pattern: String.raw`Initialization failed\. (?:Please see the error messages above|warmup error:)` },
  { pattern: String.raw`Not enough memory\. Please try to increase --mem-fraction-static` },
  { pattern: String.raw`(?:Detokenizer|DetokenizerManager|MultiDetokenizerRouter) hit an exception` },
  { pattern: String.raw`Subprocess (?<name>\S+) \(pid=(?<pid>\d+)\) crashed with exit code (?<code>-?\d+)` },
  { pattern: String.raw`[Ww]atchdog timeout \(self\.watchdog_timeout=` },
  { pattern: String.raw`(?:is not available|Port is already in use\.)` },
  { pattern: String.raw`\[Errno 98\].*address already in use` },
  { pattern: String.raw`(?:CUDA|HIP) out of memory` },
  { pattern: String.raw`CUDA out of memory|OutOfMemoryError|NCCL error|DistBackendError` },
  { pattern: String.raw`The server is fired up and ready to roll!` },
  { pattern: String.raw`Uvicorn running on (?<url>\S+)` },
  { pattern: String.raw`Initializing an? (?:V[01] )?LLM engine \(v(?<ver>[^)]+)\) with config: ` },
  { pattern: String.raw`world_size=(?<ws>\d+) rank=(?<r>\d+) local_rank=` },
  { pattern: String.raw`Starting to load model (?<model>.+?)\.\.\.` },
  { pattern: String.raw`Model loading took (?<gib>[\d.]+) Gi?B(?: memory)? and (?<s>[\d.]+) seconds` },
  { pattern: String.raw`(?:Loading model weights took (?<gb>[\d.]+) GB|Model loading took (?<gib>[\d.]+) Gi?B)` },
  { pattern: String.raw`Available KV cache memory: (?<gib>[\d.]+) GiB` },
  { pattern: String.raw`# (?:GPU|cuda|\w+) blocks: (?<gpu>\d+), # CPU blocks: (?<cpu>\d+)` },
  { pattern: String.raw`Capturing CUDA graph(?:s| shapes)(?: \((?<kind>[^,]+), (?<mode>\w+)\))?:\s*(?<pct>\d+)%` },
  { pattern: String.raw`Graph capturing finished in (?<s>\d+) secs?(?:, took (?<gib>[\d.]+) GiB)?` },
  { pattern: String.raw`init engine \(profile, create kv cache, warmup model\) took (?<s>[\d.]+) s(?:econds)?` },
  { pattern: String.raw`Starting vLLM (?:API )?server(?: (?<idx>\d+))? on (?<url>\S+)` },
  { pattern: String.raw`INFO:\s+Application startup complete\.` },
  { pattern: String.raw`Engine core initialization failed\. See root cause above` },
  { pattern: String.raw`Model architectures? .* (?:are not supported for now|is not supported in-tree anymore)` },
  { pattern: String.raw`Worker proc (?<name>\S+) died unexpectedly` },
  { pattern: String.raw`Timed out waiting for engine(?: core processe)?s to (?:start|send)` },
  { pattern: String.raw`KV cache is needed, which is larger than the available KV cache memory` },
  { pattern: String.raw`Using [\w -]+ backend\.` },
  { pattern: String.raw`traceback \(most recent call last\)`, ignoreCase: true },
  { pattern: String.raw`(?:cuda|hip) error: (?<what>[^,]+)`, ignoreCase: true },
  { pattern: String.raw`segmentation fault|bus error|core dumped`, ignoreCase: true },
];

describe('requiredLiterals', () => {
  it.for<[string, boolean, string[] | null]>([
    [String.raw`(?:cuda|CUDA)`, false, ['CUDA', 'cuda']],
    [String.raw`(?:cuda|CUDA)`, true, ['cuda']],
    [String.raw`(?:CUDA|HIP) out of memory`, false, [' out of memory']],
    [String.raw`Load weight end\.(?: elapsed=(?<el>[\d.]+) s,)? type=(?<arch>\w+)`, false, ['Load weight end.']],
    [String.raw`CUDA error|NCCL error`, false, ['CUDA error', 'NCCL error']],
    [String.raw`[Ww]atchdog timeout`, true, ['watchdog timeout']],
    [String.raw`[Ww]atchdog`, false, ['atchdog']],
    [String.raw`[Ww]d(?:og|OG)`, false, ['dOG', 'dog']],
    [String.raw`(?=Traceback)\w+`, false, ['Traceback']],
    [String.raw`ab(?:cd)+`, false, ['abcd']],
    [String.raw`x{3}`, false, ['xxx']],
    [String.raw`É{3}`, false, ['ÉÉÉ']],
    [String.raw`aÉbc`, false, ['aÉbc']],
    // Under `i`, non-ASCII letters are not trusted to lower-case like the regex engine folds them.
    [String.raw`aÉbc`, true, null],
    [String.raw`a*`, false, null],
    [String.raw`\d+ GB`, false, [' GB']],
    [String.raw`\d+ G`, false, null],
    [String.raw`foo|\w+`, false, null],
    [String.raw`foo|`, false, null],
    [String.raw`x?yz`, false, null],
    [String.raw`(?:ab|cd)ef`, false, ['abef', 'cdef']],
    [String.raw`(?:ab|c)d`, false, null],
    [String.raw`(?!foo)\w+`, false, null],
    [String.raw`(?:(?=Traceback))?\w+`, false, null],
    [String.raw`(?:(?=Traceback)){1,2}\w+`, false, ['Traceback']],
  ])('%s (ignoreCase %s) -> %j', ([pattern, ignoreCase, expected]) => {
    expect(requiredLiterals(pattern, { ignoreCase })).toEqual(expected);
  });

  it('throws the parser error on an invalid pattern', () => {
    expect(() => requiredLiterals('(a')).toThrow(/Unterminated group/);
  });

  it.for(CATALOG)('finds literals of length >= 3 for $pattern', ({ pattern, ignoreCase }) => {
    const literals = requiredLiterals(pattern, { ignoreCase });
    expect(literals).not.toBeNull();
    for (const literal of literals!) {
      expect(literal.length).toBeGreaterThanOrEqual(3);
      if (ignoreCase) expect(literal).toBe(literal.toLowerCase());
    }
  });
});

describe('requiredLiterals is a sound prefilter', () => {
  const lines = fixtureLines();

  it('reads real fixture lines', () => {
    expect(lines.length).toBeGreaterThan(5000);
  });

  it.for(CATALOG)('every fixture line matched by $pattern contains a literal', ({ pattern, ignoreCase }) => {
    const { regex, literals } = compile(pattern, ignoreCase);
    const matched = lines.filter((line) => regex.test(line));
    for (const line of matched) expect(containsAny(line, literals, ignoreCase), line).toBe(true);
  });

  it.for(CATALOG)('no fixture line without a literal is matched by $pattern', ({ pattern, ignoreCase }) => {
    const { regex, literals } = compile(pattern, ignoreCase);
    const rejected = lines.filter((line) => !containsAny(line, literals, ignoreCase));
    for (const line of rejected) expect(regex.test(line), line).toBe(false);
  });

  it('the catalog patterns do match fixture lines (so the checks above are not vacuous)', () => {
    const hits = CATALOG.filter(({ pattern, ignoreCase }) => {
      const { regex } = compile(pattern, ignoreCase);
      return lines.some((line) => regex.test(line));
    });
    expect(hits.length).toBeGreaterThanOrEqual(30);
  });

  it.for(CATALOG)('random strings generated from $pattern contain a literal', ({ pattern, ignoreCase }) => {
    const { regex, literals } = compile(pattern, ignoreCase);
    const ast = new RegExpParser({ ecmaVersion: 2024 }).parsePattern(pattern, 0, pattern.length, { unicode: false });
    const random = rng(pattern.length * 7919);
    let checked = 0;
    for (let i = 0; i < 300; i++) {
      let text = `${noise(random)}${generate(ast, random, regex.flags)}${noise(random)}`;
      if (ignoreCase) text = flipCase(text, random);
      if (!regex.test(text)) continue;
      checked++;
      expect(containsAny(text, literals, ignoreCase), text).toBe(true);
    }
    expect(checked).toBeGreaterThan(50);
  });
});

function compile(pattern: string, ignoreCase = false): { regex: RegExp; literals: string[] } {
  const literals = requiredLiterals(pattern, { ignoreCase });
  if (literals === null) throw new Error(`no literals for ${pattern}`);
  return { regex: new RegExp(pattern, ignoreCase ? 'i' : ''), literals };
}

function containsAny(line: string, literals: readonly string[], ignoreCase = false): boolean {
  const text = ignoreCase ? line.toLowerCase() : line;
  return literals.some((literal) => text.includes(literal));
}

function fixtureLines(): string[] {
  const root = fileURLToPath(new URL('../../fixtures', import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.log'));
  const ansi = new RegExp(String.raw`\x1b\[[0-9;]*[A-Za-z]`, 'g');
  return files.flatMap((f) => readFileSync(join(root, f), 'utf8').replace(ansi, '').split(/\r\n|\r|\n/));
}

type Random = () => number;

const POOL = [...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~éÉσς█'];

function noise(random: Random): string {
  // Often empty, so that anchored patterns still get samples.
  const length = random() < 0.5 ? 0 : Math.floor(random() * 12);
  return Array.from({ length }, () => POOL[Math.floor(random() * POOL.length)]).join('');
}

function flipCase(text: string, random: Random): string {
  return [...text].map((c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
}

/** A random string the node can match (assertions are ignored; callers re-check with the regex). */
function generate(node: AST.Node, random: Random, flags: string): string {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup': {
      const alt = node.alternatives[Math.floor(random() * node.alternatives.length)]!;
      return alt.elements.map((e) => generate(e, random, flags)).join('');
    }
    case 'Quantifier': {
      const extra = Math.min(node.max - node.min, 3);
      const count = node.min + Math.floor(random() * (extra + 1));
      return Array.from({ length: count }, () => generate(node.element, random, flags)).join('');
    }
    case 'Character':
      return String.fromCharCode(node.value);
    case 'CharacterClass':
    case 'CharacterSet': {
      const re = new RegExp(`^(?:${node.raw})$`, flags);
      const members = POOL.filter((c) => re.test(c));
      return members[Math.floor(random() * members.length)] ?? '';
    }
    default:
      return '';
  }
}
