/**
 * Turns one catalog entry into the logs that test it, inside real starts (hosts.ts):
 *  - fatal: the host cut at the entry's stage, then the example as the last line of a traceback
 *    in the family's and era's own format (or alone, for a logged or native line); once more
 *    with the family's wrapper after it.
 *  - survivable: the example injected at its stage into every host of its family (three eras;
 *    a platform message into all six).
 *  - symptom: a real fatal exception, then the example after it.
 *  - fatal_if_exception_follows: alone (as a survivable one), then followed by an exception.
 * Pure: no I/O; what a case expects is written next to its text.
 */
import type { Cause } from '../core/vocabulary.js';
import { exceptionClass, type CatalogEntry } from './catalog.js';
import { stageLine, timeAt, type Host } from './hosts.js';
import { restamp, type HostTime, type LogStyle } from './log-styles.js';

export type CaseCheck =
  /** FAILED with one of `causes`, and `rootLine` (when given) among the root-cause lines. */
  | { kind: 'fails'; causes: readonly Cause[]; rootLine?: string }
  /** Verdict, stage and deciding line as the host alone gives them. */
  | { kind: 'unchanged'; baseline: Host['baseline'] }
  /** FAILED, and `rootLine` (the real fatal line before the symptom) still the root cause. */
  | { kind: 'keeps-root'; rootLine: string };

export interface ConformanceCase {
  entry: CatalogEntry;
  /** What the case tests, for the list of misses: `plain`, `wrapped`, `injected`, `after-fatal`, `followed`. */
  variant: string;
  host: string;
  text: string;
  check: CaseCheck;
}

/** The exception a symptom follows: a real one, whose cause no symptom may take over. */
const REAL_FATAL = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.12 GiB memory in use.';
/** The exception after a fatal_if_exception_follows line: one that names no cause of its own. */
const BLAND_EXCEPTION = "AttributeError: 'NoneType' object has no attribute 'get'";
const PYDANTIC_HEAD = 'pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig';

export function casesFor(entry: CatalogEntry, hosts: readonly Host[], index: number): ConformanceCase[] {
  const own = hostsFor(entry, hosts);
  const host = own[index % own.length]!;
  switch (entry.kind) {
    case 'fatal':
      return [fatalCase(entry, host, false), fatalCase(entry, host, true)];
    case 'survivable':
      // Three eras of its family (the platform's: of both): a vLLM line, process tag and all, is
      // no line of an SGLang log, and each family's pack reads its own tags.
      return own.map((h) => injectedCase(entry, h));
    case 'symptom':
      return [symptomCase(entry, host)];
    case 'fatal_if_exception_follows':
      return [...own.map((h) => injectedCase(entry, h)), followedCase(entry, host)];
  }
}

/** A family's entries live in its own hosts; the platform's in every host. */
function hostsFor(entry: CatalogEntry, hosts: readonly Host[]): readonly Host[] {
  if (entry.layer === 'platform') return hosts;
  return hosts.filter((h) => h.style.family === entry.layer);
}

/** The example as the host's era prints it at line `at`: its clock, and for an exception the traceback's prefix. */
function exampleLine(entry: CatalogEntry, t: HostTime, prefix: string, className?: string): string {
  const example = restamp(entry.example, t);
  if (className === undefined) return example;
  // Some examples give the message alone: Python prints it after the class.
  return SHAPED_AS_EXCEPTION.test(example) || example.startsWith(' ') ? `${prefix}${example}` : `${prefix}${className}: ${example}`;
}

const SHAPED_AS_EXCEPTION = /^[A-Za-z_][\w.]*: /;

function fatalCase(entry: CatalogEntry, host: Host, wrapped: boolean): ConformanceCase {
  const cut = stageLine(host, entry.stage);
  const t = timeAt(host, cut);
  const head = host.lines.slice(0, cut + 1);
  const { lines, rootLine } = raising(entry, host.style, t);
  const text = [...head, ...lines, ...(wrapped ? host.style.wrapper(t) : [])];
  return { entry, variant: wrapped ? 'wrapped' : 'plain', host: host.fixture, text: joinLines(text), check: { kind: 'fails', causes: entry.causes, rootLine } };
}

/**
 * The lines that print an entry: an exception closes a traceback (raised in a worker, or in the
 * main process at launch); a logged or native line stands alone, as the source prints it.
 */
function raising(entry: CatalogEntry, style: LogStyle, t: HostTime): { lines: string[]; rootLine: string } {
  const className = exceptionClass(entry);
  if (className === undefined) {
    const line = restamp(entry.example, t);
    return { lines: [line], rootLine: line.trim() };
  }
  const inMain = entry.stage === 'launch' || entry.stage === undefined;
  const prefix = inMain ? style.mainPrefix(t) : style.workerPrefix(t);
  const open = inMain ? [`${prefix}Traceback (most recent call last):`] : style.workerOpen(t);
  const frames = framesFor(entry, style, className).map((line) => `${prefix}${line}`);
  const example = exampleLine(entry, t, prefix, className);
  // A pydantic error prints its class first and the message on the line after (the example).
  const continued = entry.example.startsWith(' ');
  const lines = continued ? [...open, ...frames, `${prefix}${PYDANTIC_HEAD}`, example] : [...open, ...frames, example];
  return { lines, rootLine: restamp(entry.example, t).trim() };
}

/**
 * Two frames, the inner one in the file the source names, whose source line quotes the message
 * (`raise ValueError(f"...")`): a quoted message is no root cause.
 */
function framesFor(entry: CatalogEntry, style: LogStyle, className: string): string[] {
  const root = style.family === 'vllm' ? '/usr/local/lib/python3.12/dist-packages' : '/sgl-workspace/sglang/python';
  const outer = style.family === 'vllm' ? `${root}/vllm/v1/engine/core.py", line 691, in run_engine_core` : `${root}/sglang/srt/managers/scheduler.py", line 2321, in run_scheduler_process`;
  const file = sourcePath(entry.where) ?? (style.family === 'vllm' ? 'vllm/config/model.py' : 'sglang/srt/server_args.py');
  const inner = file.startsWith('/') ? file : `${root}/${file.replace(/^python\//, '')}`;
  const shortClass = className.split('.').pop()!;
  return [`  File "${outer}`, '    engine = Engine(config)', `  File "${inner}", line 120, in check`, `    raise ${shortClass}(f"${entry.literal.replace(/"/g, "'")}")`];
}

/** `vllm-project/vllm@9aaf83ef502f:vllm/config/model.py:812` -> `vllm/config/model.py` (Python files only). */
function sourcePath(where: string): string | undefined {
  const match = /^[^@\s]+@[^:\s]+:([^:\s]+\.py)(?::\d+)?$/.exec(where.trim());
  return match?.[1];
}

function injectedCase(entry: CatalogEntry, host: Host): ConformanceCase {
  const at = stageLine(host, entry.stage);
  const t = timeAt(host, at);
  const text = [...host.lines.slice(0, at + 1), restamp(entry.example, t), ...host.lines.slice(at + 1)];
  return { entry, variant: 'injected', host: host.fixture, text: joinLines(text), check: { kind: 'unchanged', baseline: host.baseline } };
}

function symptomCase(entry: CatalogEntry, host: Host): ConformanceCase {
  const cut = stageLine(host, 'load_weights');
  const t = timeAt(host, cut);
  const prefix = host.style.workerPrefix(t);
  const traceback = [
    ...host.style.workerOpen(t),
    `${prefix}  File "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py", line 1355, in to`,
    `${prefix}    return self._apply(convert)`,
    `${prefix}${REAL_FATAL}`,
  ];
  const text = [...host.lines.slice(0, cut + 1), ...traceback, restamp(entry.example, t)];
  return { entry, variant: 'after-fatal', host: host.fixture, text: joinLines(text), check: { kind: 'keeps-root', rootLine: REAL_FATAL } };
}

function followedCase(entry: CatalogEntry, host: Host): ConformanceCase {
  const cut = stageLine(host, entry.stage);
  const t = timeAt(host, cut);
  const example = restamp(entry.example, t);
  // The exception comes from the process that printed the line, as it would.
  const tag = /^\(([^)]*pid=\d+)\)/.exec(example)?.[1] ?? /^\[[\d-]+ [\d:]+ ((?:DP\d+ )?TP\d+)\]/.exec(example)?.[1];
  const prefix = host.style.workerPrefix(t, tag);
  const traceback = [
    ...host.style.workerOpen(t, tag),
    `${prefix}  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker_base.py", line 612, in init_worker`,
    `${prefix}    self.worker = worker_class(**kwargs)`,
    `${prefix}${BLAND_EXCEPTION}`,
  ];
  const text = [...host.lines.slice(0, cut + 1), example, ...traceback];
  return { entry, variant: 'followed', host: host.fixture, text: joinLines(text), check: { kind: 'fails', causes: entry.causes } };
}

function joinLines(lines: readonly string[]): string {
  return `${lines.join('\n')}\n`;
}
