/**
 * What a start is: the model and the settings that change how long it takes (tensor
 * parallelism, quantization, speculative decoding), read from the argument dumps servers
 * print at launch. Starts with the same facts on the same host should take about as long.
 */

export interface SpeculativeFacts {
  method?: string;
  draft?: string;
  tokens?: number;
}

export interface StartFacts {
  model?: string;
  tp?: number;
  quantization?: string;
  speculative?: SpeculativeFacts;
}

type Args = Map<string, string>;

/**
 * One pack's argument dump (`start_facts`): where the list begins and which keys name the model
 * and the tensor-parallel size. Each server names its keys its own way; the first key present wins.
 */
export interface FactDump {
  id: string;
  regex: RegExp;
  close?: string;
  model: string[];
  tp: string[];
  tpDefault?: number;
}

/** Reads start facts with the dumps of the packs in play (each dump once, in pack order). */
export class StartFactsReader {
  private readonly dumps: readonly FactDump[];
  /** One test per line before the dumps are tried one by one: most lines are not dumps. */
  private readonly gate: RegExp | undefined;

  constructor(packs: readonly { startFacts: readonly FactDump[] }[]) {
    const byId = new Map<string, FactDump>();
    for (const pack of packs) for (const dump of pack.startFacts) if (!byId.has(dump.id)) byId.set(dump.id, dump);
    this.dumps = [...byId.values()];
    this.gate = joinedGate(this.dumps);
  }

  /** The facts one line states, or undefined when it is not an argument dump. */
  read(line: string): StartFacts | undefined {
    if (this.dumps.length === 0 || (this.gate && !this.gate.test(line))) return undefined;
    return extractStartFacts(line, this.dumps);
  }
}

function joinedGate(dumps: readonly FactDump[]): RegExp | undefined {
  const flags = new Set(dumps.map((d) => d.regex.flags));
  if (dumps.length < 2 || flags.size !== 1) return undefined;
  try {
    return new RegExp(dumps.map((d) => `(?:${d.regex.source})`).join('|'), [...flags][0]);
  } catch {
    return undefined; // the same group name in two dumps: try them one by one
  }
}

/** The facts one line states, or undefined when it is not an argument dump. */
export function extractStartFacts(line: string, dumps: readonly FactDump[]): StartFacts | undefined {
  for (const dump of dumps) {
    const found = dump.regex.exec(line);
    if (!found) continue;
    const args = parseArgList(line, found.index + found[0].length, dump.close);
    const facts: StartFacts = {};
    const model = first(args, dump.model);
    if (model !== undefined) facts.model = model;
    const tp = toInt(first(args, dump.tp)) ?? dump.tpDefault;
    if (tp !== undefined) facts.tp = tp;
    const quantization = pyValue(args.get('quantization'));
    if (quantization !== undefined) facts.quantization = quantization;
    const speculative = speculativeOf(args, facts.model);
    if (speculative) facts.speculative = speculative;
    return facts;
  }
  return undefined;
}

/** Later lines add to or correct earlier ones (the engine line follows the argument dump). */
export function mergeFacts(base: StartFacts, next: StartFacts): StartFacts {
  const merged: StartFacts = { ...base, ...next };
  if (base.speculative || next.speculative) merged.speculative = { ...base.speculative, ...next.speculative };
  return merged;
}

/** `tp2 fp8 EAGLE3 sglang-EAGLE3-8B n=4` for people (the draft by its last path part); `-` when nothing is known. */
export function describeSettings(facts: StartFacts): string {
  if (facts.model === undefined && facts.tp === undefined && !facts.quantization && !facts.speculative) return '-';
  const parts = [`tp${facts.tp ?? '?'}`];
  if (facts.quantization) parts.push(facts.quantization);
  const spec = facts.speculative;
  if (spec) {
    const draft = spec.draft?.replace(/\/+$/, '').split('/').pop();
    parts.push([spec.method ?? 'spec', draft, spec.tokens !== undefined ? `n=${spec.tokens}` : undefined].filter(Boolean).join(' '));
  }
  return parts.join(' ');
}

function speculativeOf(args: Args, model: string | undefined): SpeculativeFacts | undefined {
  const spec: SpeculativeFacts = {};
  const method = pyValue(args.get('speculative_algorithm')) ?? pyValue(args.get('speculative_method'));
  const draft = pyValue(args.get('speculative_draft_model_path')) ?? pyValue(args.get('speculative_model'));
  const tokens = toInt(pyValue(args.get('num_speculative_tokens')) ?? pyValue(args.get('speculative_num_draft_tokens')));
  const config = pyValue(args.get('speculative_config'));
  const open = config?.search(/[({]/) ?? -1;
  const nested = config !== undefined && open >= 0 ? parseArgList(config, open + 1, config[open] === '{' ? '}' : ')') : undefined;
  Object.assign(spec, defined({ method, draft, tokens }));
  if (nested) {
    Object.assign(spec, defined({
      method: pyValue(nested.get('method')),
      draft: pyValue(nested.get('model')),
      tokens: toInt(pyValue(nested.get('num_speculative_tokens')) ?? pyValue(nested.get('num_spec_tokens'))),
    }));
  }
  // MTP drafts with the target model itself: naming it again says nothing.
  if (spec.draft !== undefined && spec.draft === model) delete spec.draft;
  // SGLang prints its draft-token default even when speculative decoding is off.
  return spec.method !== undefined || spec.draft !== undefined ? spec : undefined;
}

/**
 * Reads a Python repr argument list (`a=1, b='x, y', c=Cfg(d=2)` or `'a': 1, 'b': [2, 3]`)
 * from `start` up to the matching `close` or the end of the line (dumps are often cut).
 */
export function parseArgList(text: string, start: number, close?: string): Args {
  const args: Args = new Map();
  let depth = 0;
  let quote: string | undefined;
  let itemStart = start;
  const take = (end: number): void => {
    const item = text.slice(itemStart, end).trim();
    const split = /^['"]?([A-Za-z_][\w.-]*)['"]?\s*[:=]\s*/.exec(item);
    if (split && !args.has(split[1]!)) args.set(split[1]!, item.slice(split[0].length));
  };
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if ('([{'.includes(ch)) {
      depth++;
    } else if (')]}'.includes(ch)) {
      if (depth === 0) {
        if (close === undefined || ch === close) {
          take(i);
          return args;
        }
      } else depth--;
    } else if (ch === ',' && depth === 0) {
      take(i);
      itemStart = i + 1;
    }
  }
  take(text.length);
  return args;
}

/** A Python repr value as text: quotes dropped, `None` and empty as undefined. */
function pyValue(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === '' || value === 'None' || value === "''") return undefined;
  const quoted = /^(['"])(.*)\1$/s.exec(value);
  if (quoted) return quoted[2] === '' ? undefined : quoted[2]!.replace(/\\(.)/g, '$1');
  // A value cut off with the line: an unclosed quote.
  if (/^['"]/.test(value)) return undefined;
  return value;
}

function first(args: Args, keys: string[]): string | undefined {
  for (const key of keys) {
    const value = pyValue(args.get(key));
    if (value !== undefined) return value;
  }
  return undefined;
}

function toInt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

function defined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;
}
