/**
 * The seven kinds of wrong verdict that real logs nobody had shown us found (issue 24), one
 * case each, written from the servers' own wording in realistic context (not lines cut from a
 * fixture): a line that is not fatal must not decide, a source line is not the root cause,
 * a message's words outvote packages, wrappers are set aside, a finished log that ends on an
 * exception is FAILED, and a family pack never turns a specific cause into `crash`.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../helpers/classify.js';
import { SGLANG_READY, sg, sglangHealthyStart, vl, VLLM_STARTUP_COMPLETE, vllmHealthyStart } from '../helpers/log-lines.js';

interface Case {
  kind: string;
  name: string;
  family: 'sglang' | 'vllm';
  lines: string[];
  verdict: string;
  cause?: string;
  /** Text the root-cause lines must hold. */
  evidence?: string;
  /** Text no root-cause line may hold. */
  notEvidence?: string;
}

const vllmWorker = (time: string, message: string): string => vl(time, message, { level: 'ERROR', proc: 'Worker_TP0 pid=140' });

const cases: Case[] = [
  {
    kind: '1: a line that is not fatal decided',
    name: 'a healthy ROCm start that warns "nvcc not found" at launch is READY',
    family: 'sglang',
    lines: [
      sglangHealthyStart()[0]!,
      'Failed to get device capability: nvcc not found and PyTorch is not built with CUDA support. Could not determine CUDA version..',
      ...sglangHealthyStart().slice(1),
      SGLANG_READY,
    ],
    verdict: 'ready',
  },
  {
    kind: '1: a line that is not fatal decided',
    name: "a WARNING 'Failed to import from vllm._C' is not picked over the real TypeError",
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 3),
      vl('10:00:00', "Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")", { level: 'WARNING', proc: '' }),
      vl('10:00:09', 'Traceback (most recent call last):', { level: 'ERROR', proc: '' }),
      vl('10:00:09', '  File "/usr/local/lib/python3.11/site-packages/vllm/multimodal/processing.py", line 1100, in get_hf_processor', { level: 'ERROR', proc: '' }),
      vl('10:00:09', '    return cached_processor_from_config(self.model_config, processor_cls=typ, **kwargs)', { level: 'ERROR', proc: '' }),
      vl('10:00:09', "TypeError: Glm4vProcessor.__init__() got multiple values for argument 'tokenizer'", { level: 'ERROR', proc: '' }),
    ],
    verdict: 'failed',
    evidence: "got multiple values for argument 'tokenizer'",
  },
  {
    kind: '1: a line that is not fatal decided',
    name: "torch's 'process group has NOT been destroyed' warning at exit does not make an allocator assert a distributed_error",
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 3),
      'Traceback (most recent call last):',
      '  File "/usr/local/lib/python3.12/dist-packages/torch/utils/_device.py", line 106, in __torch_function__',
      '    return func(*args, **kwargs)',
      'RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":995, please report a bug to PyTorch.',
      '[rank0]:[W1203 10:00:09.123456789 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, the application should call destroy_process_group to ensure that any pending NCCL operations have finished in this process.',
    ],
    verdict: 'failed',
    cause: 'gpu_oom',
    evidence: 'INTERNAL ASSERT FAILED',
  },
  {
    kind: '2: a source line reported as the root cause',
    name: 'the exception line, not `raise RuntimeError(f"NCCL error: ...")` above it (header lost in a gap)',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart().slice(0, 3),
      '# [... gap in source ...]',
      '    raise RuntimeError(f"NCCL error: {error_str}")',
      'RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)',
    ],
    verdict: 'failed',
    cause: 'distributed_error',
    evidence: 'RuntimeError: NCCL error: unhandled cuda error',
    notEvidence: 'raise RuntimeError',
  },
  {
    kind: "3: words and packages outvote the message",
    name: "a Python-version TypeError raised inside a kernel library's code is no kernel_error",
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 5),
      vllmWorker('10:00:09', 'Traceback (most recent call last):'),
      vllmWorker('10:00:09', '  File "/usr/local/lib/python3.10/site-packages/flashinfer/comm/trtllm_ar.py", line 88, in <module>'),
      vllmWorker('10:00:09', '    _offsets: array.array[int] = array.array("i")'),
      vllmWorker('10:00:09', "TypeError: type 'array.array' is not subscriptable"),
    ],
    verdict: 'failed',
    cause: 'dependency_error',
    evidence: 'is not subscriptable',
  },
  {
    kind: "3: words and packages outvote the message",
    name: 'a speculative-decoding option conflict is bad_argument, not draft_model',
    family: 'sglang',
    lines: [
      sg('12:00:00', "server_args=ServerArgs(model_path='Qwen/Qwen3.6-35B', speculative_algorithm='EAGLE')"),
      'Traceback (most recent call last):',
      '  File "/sgl-workspace/sglang/python/sglang/srt/server_args.py", line 812, in _handle_speculative_decoding',
      '    raise ValueError(',
      'ValueError: Speculative decoding for Qwen3_5ForConditionalGeneration is not compatible with radix cache when using --mamba-scheduler-strategy no_buffer.To use radix cache with speculative decoding, please use --mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1.',
    ],
    verdict: 'failed',
    cause: 'bad_argument',
  },
  {
    kind: '4: wordings no rule knew',
    name: "SGLang's 'has no SGlang implementation and the Transformers implementation is not compatible' is unsupported_model",
    family: 'sglang',
    lines: [
      ...sglangHealthyStart().slice(0, 4),
      sg('12:00:08', 'Scheduler hit an exception: Traceback (most recent call last):', 'TP0'),
      '  File "/sgl-workspace/sglang/python/sglang/srt/model_loader/utils.py", line 90, in resolve_transformers_arch',
      '    raise ValueError(',
      'ValueError: MiniCPMSALAForCausalLM has no SGlang implementation and the Transformers implementation is not compatible with SGLang.',
    ],
    verdict: 'failed',
    cause: 'unsupported_model',
  },
  {
    kind: '4: wordings no rule knew',
    name: "a Rust frontend's clap error for --api-key is bad_argument",
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 2),
      "error: invalid value 'sk-…' for '--api-key <API_KEY>': must not be empty",
      '',
      "For more information, try '--help'.",
    ],
    verdict: 'failed',
    cause: 'bad_argument',
  },
  {
    kind: '5: wrappers not set aside',
    name: "Ascend's 'The Inner error is reported as above' leaves the error above as the root cause",
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 5),
      vllmWorker('10:00:09', 'Traceback (most recent call last):'),
      vllmWorker('10:00:09', '  File "/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py", line 2100, in execute_model'),
      vllmWorker('10:00:09', '    torch.npu.synchronize()'),
      vllmWorker('10:00:09', 'RuntimeError: The aicore execution is abnormal. '),
      vllmWorker('10:00:10', 'Traceback (most recent call last):'),
      vllmWorker('10:00:10', '  File "/vllm-workspace/vllm/vllm/v1/executor/multiproc_executor.py", line 820, in worker_busy_loop'),
      vllmWorker('10:00:10', '    output = func(*args, **kwargs)'),
      vllmWorker('10:00:10', 'RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the current working operator name is aclnnMatmul.'),
    ],
    verdict: 'failed',
    cause: 'gpu_fault',
    evidence: 'aicore execution is abnormal',
  },
  {
    kind: '6: a finished log that ends on a fatal exception',
    name: 'an exception logged by the engine with nothing after it: the end of the input is the death',
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 5),
      vl('10:00:09', 'EngineCore hit an exception: Traceback (most recent call last):', { level: 'ERROR', proc: '' }),
      vl('10:00:09', '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 387, in run_engine_core', { level: 'ERROR', proc: '' }),
      vl('10:00:09', '    self.model_runner.profile_run()', { level: 'ERROR', proc: '' }),
      vl('10:00:09', "AttributeError: 'NoneType' object has no attribute 'shape'", { level: 'ERROR', proc: '' }),
    ],
    verdict: 'failed',
    cause: 'crash',
    evidence: "AttributeError: 'NoneType' object has no attribute 'shape'",
  },
  {
    kind: '6: a finished log that ends on a fatal exception',
    name: 'a line the source makes fatal, then the end: FAILED with the source\'s cause',
    family: 'sglang',
    lines: [...sglangHealthyStart().slice(0, 3), 'node01:31200:31900 [0] graph/rings.cc:51 NCCL WARN Error : ring 0 does not loop back to start (3 != 0)'],
    verdict: 'failed',
    cause: 'distributed_error',
  },
  {
    kind: '7: a family pack made it worse',
    name: "'Rank 0 scheduler is dead' then 'Exit code: -9' is host_oom with the SGLang pack too",
    family: 'sglang',
    lines: [...sglangHealthyStart().slice(0, 7), '[2025-03-08 12:00:30] Rank 0 scheduler is dead. Please check if there are relevant logs.', '[2025-03-08 12:01:16] Exit code: -9'],
    verdict: 'failed',
    cause: 'host_oom',
  },
];

describe('what unseen logs got wrong, by kind', () => {
  it.for(cases)('$kind: $name', (c) => {
    const { verdict } = classify(c.family, c.lines);
    const roots = verdict.evidence.map((e) => e.text).join('\n');
    expect(verdict.verdict, roots).toBe(c.verdict);
    if (c.cause) expect(verdict.cause, roots).toBe(c.cause);
    if (c.evidence) expect(roots).toContain(c.evidence);
    if (c.notEvidence) expect(roots).not.toContain(c.notEvidence);
  });

  it('a WARNING line alone, then healthy progress: READY, the warning is no root cause of anything', () => {
    const lines = [vl('10:00:00', "Failed to import from vllm._C with ModuleNotFoundError(\"No module named 'vllm._C'\")", { level: 'WARNING', proc: 'APIServer pid=100' }), ...vllmHealthyStart(), VLLM_STARTUP_COMPLETE];
    expect(classify('vllm', lines).verdict.verdict).toBe('ready');
  });

  it('a suspect start that moves on is not failed: progress withdraws the suspicion', () => {
    const start = sglangHealthyStart();
    const lines = [...start.slice(0, 5), 'node01:31200:31900 [0] graph/rings.cc:51 NCCL WARN Error : ring 0 does not loop back to start (3 != 0)', ...start.slice(5), SGLANG_READY];
    expect(classify('sglang', lines).verdict.verdict).toBe('ready');
  });

  it('a suspect start says so with one warning event naming the candidate', () => {
    const lines = [...sglangHealthyStart().slice(0, 3), 'node01:31200:31900 [0] graph/rings.cc:51 NCCL WARN Error : ring 0 does not loop back to start (3 != 0)'];
    const warnings = classify('sglang', lines).events.filter((e) => e.type === 'warning' && e.message.startsWith('suspect:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ cause: 'distributed_error' });
  });
});

describe("after READY, only the server's own fatal lines count (issue 25, item 1)", () => {
  const echoes = [
    {
      family: 'vllm' as const,
      lines: [...vllmHealthyStart(), VLLM_STARTUP_COMPLETE, "(APIServer pid=1) INFO 03-08 12:01:00 [logger.py:43] Received request chatcmpl-5a74: prompt: 'my job died with torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB', params: SamplingParams(n=1)"],
    },
    {
      family: 'vllm' as const,
      name: 'a request echo printed without a level (a custom logging config)',
      lines: [...vllmHealthyStart(), VLLM_STARTUP_COMPLETE, "Received request cmpl-77: prompt: 'RuntimeError: NCCL error: unhandled system error', params: SamplingParams(n=1)"],
    },
    {
      family: 'sglang' as const,
      lines: [...sglangHealthyStart(), SGLANG_READY, "[2025-03-08 12:01:00] Receive: obj=GenerateReqInput(rid='c9', text='why RuntimeError: NCCL error: unhandled system error?')"],
    },
    {
      family: 'sglang' as const,
      name: "the model's answer echoed with --log-requests",
      lines: [...sglangHealthyStart(), SGLANG_READY, "[2025-03-08 12:01:02] Finish: obj=GenerateReqInput(rid='c9'), out={'text': 'torch.OutOfMemoryError: CUDA out of memory means the GPU is full.'}"],
    },
  ];
  it.for(echoes.map((e) => ({ name: 'a request echo quoting a fatal error', ...e })))('$family: $name', ({ family, lines }) => {
    const { verdict, events } = classify(family, lines);
    expect(verdict.verdict).toBe('ready');
    expect(events.filter((e) => e.type === 'after-ready-failure')).toEqual([]);
  });

  it("a fatal line the server itself prints after READY is still the alarm", () => {
    const { events } = classify('sglang', [...sglangHealthyStart(), SGLANG_READY, sg('12:02:00', 'Scheduler hit an exception: Traceback (most recent call last):', 'TP0'), 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.']);
    expect(events.filter((e) => e.type === 'after-ready-failure').map((e) => e.type === 'after-ready-failure' && e.cause)).toContain('gpu_oom');
  });
});
