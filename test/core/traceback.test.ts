import { describe, expect, it } from 'vitest';
import type { ParsedFrame } from '../../src/core/parse-line.js';
import { TracebackTracker } from '../../src/core/traceback.js';

const frame = (text: string, logged = false): ParsedFrame => ({ text, body: text, logged });

function run(lines: string[], logged = false) {
  const tracker = new TracebackTracker();
  const roles: string[] = [];
  const exceptions = lines.flatMap((line, i) => {
    const found = tracker.push(frame(line, logged), i + 1);
    roles.push(tracker.role);
    return found ? [found] : [];
  });
  return { exceptions, roles };
}

describe('TracebackTracker', () => {
  it('finds the exception that closes an uncaught traceback', () => {
    const { exceptions, roles } = run(['Traceback (most recent call last):', '  File "/x/a.py", line 1, in f', '    raise ValueError("bad")', 'ValueError: bad']);
    expect(exceptions).toHaveLength(1);
    expect(exceptions[0]).toMatchObject({ text: 'ValueError: bad', uncaught: true, frameFile: '/x/a.py' });
    expect(roles).toEqual(['start', 'code', 'code', 'exception']);
  });

  it('quotes the failing source line for a bare exception', () => {
    const { exceptions } = run(['Traceback (most recent call last):', '  File "/x/a.py", line 1, in f', '    assert heads % tp == 0', '           ^^^^^^^^^^^^^^', 'AssertionError']);
    expect(exceptions[0]!.evidence).toEqual(['assert heads % tp == 0', 'AssertionError']);
  });

  it('knows a logged traceback from an uncaught one, and a thread from a process', () => {
    expect(run(['Traceback (most recent call last):', '  File "/x", line 1', 'KeyError: 1'], true).exceptions[0]!.uncaught).toBe(false);
    expect(run(['Exception in thread Thread-1:', 'Traceback (most recent call last):', '  File "/x", line 1', 'KeyError: 1']).exceptions[0]!.uncaught).toBe(false);
  });

  it('marks chained tracebacks', () => {
    const { exceptions } = run([
      'Traceback (most recent call last):',
      '  File "/x", line 1',
      "KeyError: 'glm5'",
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'Traceback (most recent call last):',
      '  File "/y", line 2',
      'ValueError: The checkpoint has model type glm5',
    ]);
    expect(exceptions.map((e) => e.chained)).toEqual([undefined, 'handling']);
  });

  it('ignores interleaved lines that are not exception-shaped, and uvicorn level words', () => {
    const { exceptions } = run(['Traceback (most recent call last):', '  File "/x", line 1', 'INFO:     Started server process [1]', 'Loading safetensors checkpoint shards: 50% Completed | 1/2', 'torch.OutOfMemoryError: CUDA out of memory.']);
    expect(exceptions.map((e) => e.text)).toEqual(['torch.OutOfMemoryError: CUDA out of memory.']);
  });

  it('picks up a traceback whose header was lost', () => {
    const { exceptions } = run(['  File "/x/arg_utils.py", line 9, in create', '    return ModelConfig(', 'pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig']);
    expect(exceptions).toHaveLength(1);
  });
});
