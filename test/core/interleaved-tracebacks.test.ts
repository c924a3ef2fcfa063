/**
 * Issue 25 item 17: two tracebacks whose lines interleave, one per stream (`run` reads stdout and
 * stderr) or one per process tag (`(Worker_TP1 pid=102)`). Each is read on its own, so the fatal
 * one keeps its cause, and the verdict comes on its exception line, not when the input ends.
 */
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/core/events.js';
import { Session } from '../../src/core/session.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';

const packs = FAMILIES.map((family) => loadPack(family));

/** Raised by vLLM's engine configuration check: vllm/config-rejected names it (in_frame). */
const FATAL = [
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3/site-packages/vllm/entrypoints/openai/api_server.py", line 10, in run',
  '    engine_args.create_engine_config()',
  '  File "/usr/lib/python3/site-packages/vllm/engine/arg_utils.py", line 1200, in create_engine_config',
  '    raise ValueError(f"max_model_len {x} exceeds the limit")',
  'ValueError: max_model_len 99999 exceeds the limit',
];
/** One the server survives (a telemetry thread's), with an exception of another class. */
const SURVIVED = [
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3/site-packages/usage/telemetry.py", line 5, in send',
  '    post(url)',
  '  File "/usr/lib/python3/site-packages/usage/http.py", line 9, in post',
  '    raise ConnectionError("telemetry endpoint unreachable")',
  'ConnectionError: telemetry endpoint unreachable',
];
const HEAD = ['INFO 03-10 16:19:28 [api_server.py:1000] vLLM API server version 0.8.0', "INFO 03-10 16:19:29 [api_server.py:1001] non-default args: {'model': 'x'}"];

interface Line {
  text: string;
  stream?: string;
}

/** Pushes the lines live (a wall time each); the verdict and the line whose push returned it. */
function play(lines: Line[]): { verdict?: Verdict; atLine?: number; atEnd?: Verdict } {
  const session = new Session({ packs, family: 'vllm' });
  for (const [index, line] of lines.entries()) {
    const events = session.push(line.text, { lineNo: index + 1, wall: 1_000 + index * 10, stream: line.stream });
    const found = events.find((e) => e.type === 'verdict');
    if (found?.type === 'verdict') return { verdict: found.verdict, atLine: index + 1 };
  }
  const end = session.end().find((e) => e.type === 'verdict');
  return { atEnd: end?.type === 'verdict' ? end.verdict : undefined };
}

/** `first` and `second` line by line: first[0], second[0], first[1], ... */
function interleave(first: Line[], second: Line[]): Line[] {
  return first.flatMap((line, i) => [line, second[i]!]);
}

const lastFatalLine = (lines: Line[]): number => lines.findIndex((l) => l.text.endsWith('ValueError: max_model_len 99999 exceeds the limit')) + 1;

describe('25.17: interleaved tracebacks', () => {
  const cases = [
    {
      name: 'one per stream (fatal on stderr, the other on stdout), the fatal line last',
      lines: interleave(SURVIVED.map((text) => ({ text, stream: 'stdout' })), FATAL.map((text) => ({ text, stream: 'stderr' }))),
    },
    {
      name: 'one per stream, the fatal line first of each pair',
      lines: interleave(FATAL.map((text) => ({ text, stream: 'stderr' })), SURVIVED.map((text) => ({ text, stream: 'stdout' }))),
    },
    {
      name: 'one per worker process tag, on one stream',
      lines: interleave(SURVIVED.map((text) => ({ text: `(Worker_TP1 pid=102) ${text}` })), FATAL.map((text) => ({ text: `(Worker_TP0 pid=101) ${text}` }))),
    },
  ];

  it.for(cases)('25.17: $name: FAILED bad_argument on the fatal exception line, with that line as the root cause', ({ lines }) => {
    const all = [...HEAD.map((text) => ({ text, stream: 'stdout' })), ...lines];
    const { verdict, atLine } = play(all);
    expect(verdict, 'a verdict before the input ends').toBeDefined();
    expect(atLine).toBe(lastFatalLine(all));
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'bad_argument', rule: 'vllm/config-rejected' });
    expect(verdict!.evidence?.map((e) => e.text.replace(/^\([^)]*\) /, ''))).toEqual(['ValueError: max_model_len 99999 exceeds the limit']);
  });

  it('25.17: the same traceback alone decides on the same line (the interleaving changes nothing)', () => {
    const all = [...HEAD, ...FATAL].map((text) => ({ text }));
    const { verdict, atLine } = play(all);
    expect(atLine).toBe(all.length);
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'bad_argument', rule: 'vllm/config-rejected' });
  });
});
