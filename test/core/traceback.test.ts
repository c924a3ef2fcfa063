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

describe('TracebackTracker: one traceback per stream and per process tag (issue 25 item 17)', () => {
  const tagged = (text: string, tags: { proc?: string; rank?: string }): ParsedFrame => ({ text, body: text, logged: false, ...tags });
  const first = ['Traceback (most recent call last):', '  File "/a/one.py", line 1, in f', '    g()', 'KeyError: 1'];
  const second = ['Traceback (most recent call last):', '  File "/b/two.py", line 2, in h', '    raise ValueError("two")', 'ValueError: two'];

  it('25.17: two tracebacks interleaved line by line, one per stream, each close on their own exception with their own frames', () => {
    const tracker = new TracebackTracker();
    const found = first.flatMap((line, i) => [tracker.push(frame(line), 2 * i + 1, 'stdout'), tracker.push(frame(second[i]!), 2 * i + 2, 'stderr')]).filter((e) => e !== undefined);
    expect(found.map((e) => [e.text, e.frameFile])).toEqual([
      ['KeyError: 1', '/a/one.py'],
      ['ValueError: two', '/b/two.py'],
    ]);
    expect(tracker.idle).toBe(true);
  });

  it('25.17: the same, one per process tag on one stream', () => {
    const tracker = new TracebackTracker();
    const found = first
      .flatMap((line, i) => [tracker.push(tagged(line, { proc: 'Worker_TP0' }), 2 * i + 1), tracker.push(tagged(second[i]!, { proc: 'Worker_TP1' }), 2 * i + 2)])
      .filter((e) => e !== undefined);
    expect(found.map((e) => [e.className, e.frameFile])).toEqual([
      ['KeyError', '/a/one.py'],
      ['ValueError', '/b/two.py'],
    ]);
  });

  it('25.17: a source line of one stream is code to its own traceback only; the other stream\'s lines stay outside', () => {
    const tracker = new TracebackTracker();
    tracker.push(frame('Traceback (most recent call last):'), 1, 'stderr');
    tracker.push(frame('  File "/x/a.py", line 1, in f'), 2, 'stderr');
    tracker.push(frame('  indented chatter on stdout'), 3, 'stdout');
    expect(tracker.role).toBe('outside');
    tracker.push(frame('    raise RuntimeError("x")'), 4, 'stderr');
    expect(tracker.role).toBe('code');
    expect(tracker.push(frame('RuntimeError: x'), 5, 'stderr')).toMatchObject({ text: 'RuntimeError: x', frameFile: '/x/a.py' });
  });

  it('SGLang: the bare lines after a tagged opener are that traceback\'s, while another rank\'s tagged lines interleave', () => {
    const tracker = new TracebackTracker();
    tracker.push(tagged('Scheduler hit an exception: Traceback (most recent call last):', { rank: 'TP0' }), 1);
    tracker.push(frame('  File "/sglang/srt/managers/scheduler.py", line 9, in event_loop'), 2);
    tracker.push(tagged('Load weight end. type=Qwen2ForCausalLM', { rank: 'TP1' }), 3);
    tracker.push(frame('    self.recv_requests()'), 4);
    const closed = tracker.push(frame('RuntimeError: boom'), 5);
    expect(closed).toMatchObject({ text: 'RuntimeError: boom', frameFile: '/sglang/srt/managers/scheduler.py', openedBy: { rank: 'TP0' } });
    expect(tracker.startLine).toBe(1);
  });

  it('a logged untagged line does not continue a tagged traceback (another process\'s logger)', () => {
    const tracker = new TracebackTracker();
    tracker.push(tagged('Traceback (most recent call last):', { proc: 'Worker_TP0' }), 1);
    expect(tracker.push({ text: 'Note: x', body: 'Note: x', logged: true }, 2)).toBeUndefined();
    expect(tracker.idle).toBe(false);
    expect(tracker.push(tagged('ValueError: y', { proc: 'Worker_TP0' }), 3)).toMatchObject({ className: 'ValueError' });
  });

  it('a traceback whose writer goes quiet is given up, so the log is idle again', () => {
    const tracker = new TracebackTracker();
    tracker.push(frame('Traceback (most recent call last):'), 1, 'stderr');
    for (let i = 0; i < 1_000; i++) tracker.push(frame(`chatter ${i}`), i + 2, 'stdout');
    expect(tracker.idle).toBe(true);
  });
});
