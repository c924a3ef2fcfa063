/**
 * The cause-inference layer and the fatal facts that come without an exception, on the shipped
 * packs: exceptions no failure rule names get a cause from their words, class or package; the
 * ranking lets specific evidence beat wrappers and unrelated warnings.
 */
import { describe, expect, it } from 'vitest';
import { inferCause, isOpaque } from '../../src/core/infer-cause.js';
import { classify, shippedPack } from '../helpers/classify.js';
import { sg, sglangHealthyStart, vl, vllmHealthyStart } from '../helpers/log-lines.js';

const traceback = (file: string, exception: string, ...after: string[]): string[] => [
  'Traceback (most recent call last):',
  `  File "${file}", line 10, in run`,
  '    do_it()',
  exception,
  ...after,
];

describe('inferCause (pure: tables in, entry out)', () => {
  const tables = shippedPack('sglang').inference;
  it.for([
    { name: 'an API signature mismatch between two packages', className: 'TypeError', words: "f() takes 1 positional argument but 2 were given", cause: 'dependency_error' },
    { name: 'got multiple values for an argument', className: 'TypeError', words: "__init__() got multiple values for argument 'config'", cause: 'dependency_error' },
    { name: 'an option the model needs', className: 'ValueError', words: 'Please pass the argument `trust_remote_code=True` to allow custom code to be run.', cause: 'bad_argument' },
    { name: 'a GPU architecture requirement', className: 'ValueError', words: 'FlashInfer allreduce fusion requires SM90 or SM10X NVIDIA GPUs.', cause: 'unsupported_gpu' },
    { name: 'advice to raise the memory fraction (the KV cache does not fit)', className: 'RuntimeError', words: 'Not enough memory. Please try to increase --mem-fraction-static.', cause: 'kv_cache_memory' },
    { name: 'a missing package', className: 'ModuleNotFoundError', words: "No module named 'vllm'", cause: 'dependency_error' },
    { name: 'the class alone (a bare ImportError)', className: 'ImportError', words: '', cause: 'dependency_error' },
    { name: 'numpy host memory', className: 'numpy.core._exceptions._ArrayMemoryError', words: '', cause: 'host_oom' },
    { name: 'an assertion inside a kernel library', className: 'AssertionError', words: '', frameFile: '/usr/lib/python3/site-packages/flashinfer/decode.py', cause: 'kernel_error' },
  ])('$name -> $cause', ({ className, words, frameFile, cause }) => {
    expect(inferCause(tables, { className, words, frameFile })?.cause).toBe(cause);
  });

  it('common validation words speak only after the class and the package', () => {
    const kernel = { className: 'RuntimeError', words: 'page_size must be 16 or 32', frameFile: '/site-packages/flashinfer/prefill.py' };
    expect(inferCause(tables, kernel)?.cause).toBe('kernel_error');
    expect(inferCause(tables, { ...kernel, frameFile: '/app/serve.py' })?.cause).toBe('bad_argument');
  });

  it('knows nothing about a plain exception with plain words', () => {
    expect(inferCause(tables, { className: 'KeyError', words: "'foo'", frameFile: '/app/main.py' })).toBeUndefined();
  });

  it('tells an opaque message (a bare class, an enum code) from one that says something', () => {
    expect(isOpaque('')).toBe(true);
    expect(isOpaque('NIXL_ERR_BACKEND')).toBe(true);
    expect(isOpaque('registration failed for the backend')).toBe(false);
  });
});

describe('exceptions no rule names, in a log', () => {
  it('an unnamed exception gets the inferred cause and stays the root-cause line', () => {
    const lines = [...sglangHealthyStart().slice(0, 4), sg('12:00:08', 'Scheduler hit an exception: Traceback (most recent call last):', 'TP0'), ...traceback('/sgl/srt/model_loader/loader.py', "TypeError: _weights_iterator() takes 1 positional argument but 2 were given").slice(1)];
    const { verdict } = classify('sglang', lines);
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'dependency_error', rule: 'common/infer-install' });
    expect(verdict.evidence[0]?.text).toContain('takes 1 positional argument');
  });

  it('words on a continuation line name the cause; SGLang\'s stock --mem-fraction-static advice does not', () => {
    const lines = [
      ...sglangHealthyStart().slice(0, 4),
      ...traceback('/sgl/srt/model_executor/cuda_graph_runner.py', 'Exception: Capture cuda graph failed: ninja exited with status 1', '/usr/bin/ld: cannot find -lfoo', 'Possible solutions:', '1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)'),
    ];
    const { verdict } = classify('sglang', lines);
    expect(verdict.cause).toBe('kernel_error');
    expect(verdict.evidence.map((e) => e.text)).toContain('/usr/bin/ld: cannot find -lfoo');
    expect(verdict.evidence.map((e) => e.text).join('\n')).not.toContain('mem-fraction-static');
  });
});

describe('fatal facts that come with no exception', () => {
  it('a negative KV budget fails the start (kv_cache_memory); a zero one does not', () => {
    const negative = classify('vllm', [...vllmHealthyStart().slice(0, 10), vl('12:00:48', 'Available KV cache memory: -2.14 GiB')]);
    expect(negative.verdict).toMatchObject({ verdict: 'failed', cause: 'kv_cache_memory', rule: 'vllm/negative-kv-cache-memory' });
    const zero = classify('vllm', [...vllmHealthyStart().slice(0, 10), vl('12:00:48', 'Available KV cache memory: 0.00 GiB')]);
    expect(zero.verdict.verdict).not.toBe('failed');
  });

  it('a bare Killed with no error before it is the OOM killer; after an exception it is the server killing its tree', () => {
    const bare = classify('sglang', [...sglangHealthyStart().slice(0, 6), 'Killed']);
    expect(bare.verdict).toMatchObject({ verdict: 'failed', cause: 'host_oom', rule: 'common/shell-killed' });
    const after = classify('sglang', [...sglangHealthyStart().slice(0, 4), ...traceback('/app/x.py', 'KeyError: foo'), sg('12:00:09', 'Received sigquit from a child process. It usually means the child failed.'), 'Killed']);
    expect(after.verdict).toMatchObject({ verdict: 'failed', cause: 'crash' });
  });

  it('a ROCm runtime abort without a traceback is a GPU fault', () => {
    const { verdict } = classify('vllm', [...vllmHealthyStart().slice(0, 4), 'Memory access fault by GPU node-1 (Agent handle: 0x43578c10) on address 0x7f58f8001000. Reason: Page not present or supervisor privilege.']);
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'gpu_fault', rule: 'common/accelerator-runtime-abort' });
  });

  it.for([
    { name: 'torch DefaultCPUAllocator', line: 'RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can\'t allocate memory: you tried to allocate 8589934592 bytes. Error code 12 (Cannot allocate memory)' },
    { name: 'numpy _ArrayMemoryError', line: 'numpy.core._exceptions._ArrayMemoryError: Unable to allocate 16.0 GiB for an array with shape (4096, 1048576) and data type float32' },
  ])('$name is host memory (issue 13 item 11)', ({ line }) => {
    const { verdict } = classify('sglang', [...sglangHealthyStart().slice(0, 6), ...traceback('/sgl/srt/model_loader/loader.py', line)]);
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'host_oom', rule: 'common/host-out-of-memory' });
  });
});

describe('ranking by specificity', () => {
  it('exit code -3 is read as a value: SGLang\'s "If exit code is -9 (SIGKILL)" advice is no OOM evidence', () => {
    const lines = [
      ...sglangHealthyStart().slice(0, 8),
      ...traceback('/sgl/srt/mem_cache/memory_pool.py', 'AssertionError'),
      sg('12:00:25', 'Rank 0 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.'),
    ];
    const { verdict } = classify('sglang', lines);
    expect(verdict.cause).not.toBe('host_oom');
    expect(verdict.evidence.map((e) => e.text)).toContain('AssertionError');
  });

  it('an unnamed exception outranks a wrapper with a cause, but a launcher EOFError (a dead child\'s pipe) does not', () => {
    const killed = [
      ...sglangHealthyStart().slice(0, 6),
      ...traceback('/usr/lib/python3.10/multiprocessing/connection.py', 'EOFError'),
      sg('12:00:25', 'Rank 0 scheduler is dead. Please check if there are relevant logs.'),
      sg('12:00:25', 'Exit code: -9'),
    ];
    expect(classify('sglang', killed).verdict).toMatchObject({ verdict: 'failed', cause: 'host_oom', rule: 'common/sigkill-exit' });
    const raised = [...killed.slice(0, 6), ...traceback('/sgl/srt/mem_cache/memory_pool.py', "KeyError: 'layers.0'"), ...killed.slice(-2)];
    expect(classify('sglang', raised).verdict).toMatchObject({ verdict: 'failed', cause: 'crash' });
  });

  it('an NCCL WARN line is reported with the Python exception it led to, the exception first', () => {
    const lines = [
      ...sglangHealthyStart().slice(0, 2),
      'host-a:11:11 [3] os/linux.cc:200 NCCL WARN ncclOsSocketPollConnect: connect to 10.0.0.1<37857> returned Connection refused, exceeded error retry count after 35 attempts',
      sg('12:00:06', 'Scheduler hit an exception: Traceback (most recent call last):', 'TP1'),
      '  File "/sgl/srt/distributed/device_communicators/pynccl_wrapper.py", line 300, in NCCL_CHECK',
      '    raise RuntimeError(f"NCCL error: {error_str}")',
      'RuntimeError: NCCL error: remote process exited or there was a network error',
    ];
    const { verdict } = classify('sglang', lines);
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'distributed_error', rule: 'common/nccl-error' });
    expect(verdict.evidence.map((e) => e.text)).toEqual([lines[6], lines[2]]);
  });

  it('a specific rule beats a catch-all (fallback) rule on the same line', () => {
    const lines = [
      vl('12:00:00', 'vLLM API server version 0.11.0', { proc: 'APIServer pid=1' }),
      '(APIServer pid=1) pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig',
      '(APIServer pid=1)   Value error, No model architectures are specified [type=value_error, input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]',
    ];
    const { verdict } = classify('vllm', lines, 60_000);
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'unsupported_model' });
  });

  it('a warning from another process does not outrank the failing process\'s exception', () => {
    const lines = [
      ...vllmHealthyStart().slice(0, 5),
      "(pid=13210) WARNING 03-08 12:00:16 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")",
      'ERROR 03-08 12:00:30 [core.py:586] Traceback (most recent call last):',
      'ERROR 03-08 12:00:30 [core.py:586]   File "/vllm/model_executor/model_loader/loader.py", line 10, in load',
      'ERROR 03-08 12:00:30 [core.py:586]     it(a, b)',
      'ERROR 03-08 12:00:30 [core.py:586] TypeError: _safetensors_weights_iterator() takes 1 positional argument but 2 were given',
      'ERROR 03-08 12:00:30 [core.py:586] EngineCore failed to start.',
    ];
    const { verdict } = classify('vllm', lines);
    expect(verdict.evidence[0]?.text).toContain('TypeError');
  });
});
