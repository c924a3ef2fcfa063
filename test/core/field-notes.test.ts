/**
 * One case per trap in shared/docs/field-notes.md, on the shipped packs: what a hand-written
 * grep loop gets wrong, spinup must get right.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../helpers/classify.js';
import { SGLANG_READY, sg, sglangHealthyStart, vl, VLLM_STARTUP_COMPLETE, vllmHealthyStart } from '../helpers/log-lines.js';

interface Trap {
  name: string;
  family?: 'sglang' | 'vllm';
  lines: string[];
  idleMs?: number;
  verdict: string;
  stage?: string;
  cause?: string;
  evidence?: string;
}

const HOUR = 3_600_000;
const ansiTag = '\x1b[1;36m(EngineCore_DP0 pid=7)\x1b[0;0m ';

const traps: Trap[] = [
  // --- the log text ---------------------------------------------------------------------------
  {
    name: 'a fatal line glued to the end of a tqdm \\r frame',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart().slice(0, 11),
      'Capturing batches (bs=448 avail_mem=87.41 GB):   0%|          | 0/51 [00:00<?, ?it/s]\rCapturing batches (bs=448 avail_mem=87.41 GB):   8%|▊         | 4/51 [00:20<03:35, 4.59s/it]Fatal Python error: Segmentation fault',
    ],
    verdict: 'failed',
    stage: 'cuda_graph',
    cause: 'native_crash',
    evidence: 'Fatal Python error: Segmentation fault',
  },
  {
    name: 'ANSI colour codes inside vLLM process tags',
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 5),
      `${ansiTag}ERROR 03-08 12:00:20 [core.py:586] EngineCore failed to start.`,
      `${ansiTag}ERROR 03-08 12:00:20 [core.py:586] Traceback (most recent call last):`,
      `${ansiTag}ERROR 03-08 12:00:20 [core.py:586]   File "/x/vllm/v1/worker/gpu_model_runner.py", line 1, in load_model`,
      `${ansiTag}ERROR 03-08 12:00:20 [core.py:586] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.`,
    ],
    verdict: 'failed',
    stage: 'load_weights',
    cause: 'gpu_oom',
    evidence: 'torch.OutOfMemoryError: CUDA out of memory',
  },
  {
    name: 'colour codes pasted as literal ^[[ text',
    family: 'vllm',
    lines: ['^[[1;36m(EngineCore_DP0 pid=7)^[[0;0m INFO 03-08 12:00:16 [gpu_model_runner.py:1] Starting to load model x...'],
    verdict: 'incomplete',
    stage: 'load_weights',
  },
  {
    name: 'docker compose prefix',
    family: 'vllm',
    lines: ['vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.'],
    verdict: 'failed',
    cause: 'kv_cache_memory',
  },
  {
    name: 'Buildkite gutter with ISO timestamps',
    family: 'vllm',
    lines: ['  | [2024-09-05T00:38:34Z] (EngineCore_DP0 pid=7) ValueError: No available memory for the cache blocks.'],
    verdict: 'failed',
    cause: 'kv_cache_memory',
  },
  {
    name: 'Kubernetes log viewer border',
    family: 'sglang',
    lines: [`│ ${SGLANG_READY}`],
    verdict: 'ready',
  },
  {
    name: "an application's own logger wrapping every line",
    family: 'sglang',
    lines: [
      `2025-03-07 23:50:27,532 - __main__ - INFO - ${sg('23:50:27', 'Init torch distributed begin.', 'TP0')}`,
      '2025-03-07 23:50:27,532 - __main__ - WARNING - Attempt 13: Please wait for sglang server to become ready...',
      `2025-03-07 23:50:27,727 - __main__ - INFO - ${sg('23:50:27', 'Load weight begin. avail mem=22.46 GB', 'TP0')}`,
    ],
    verdict: 'incomplete',
    stage: 'load_weights',
  },
  {
    name: 'CRLF line endings',
    family: 'sglang',
    lines: [...sglangHealthyStart(), SGLANG_READY].map((l) => `${l}\r`),
    verdict: 'ready',
    stage: 'ready',
  },
  {
    name: 'vLLM timestamps without a year across New Year are not a year of silence',
    family: 'vllm',
    lines: [vl('23:59:58', 'Starting to load model x...', { date: '12-31' }), vl('00:00:03', 'Loading weights took 4.30 seconds', { date: '01-01' })],
    verdict: 'incomplete',
    stage: 'load_weights',
  },
  {
    name: 'eight ranks interleaving the same markers',
    family: 'sglang',
    lines: [0, 1, 2, 3, 4, 5, 6, 7].flatMap((r) => [sg('12:00:05', 'Init torch distributed begin.', `TP${r}`), sg('12:00:06', 'Load weight begin. avail mem=70 GB', `TP${7 - r}`)]),
    verdict: 'incomplete',
    stage: 'load_weights',
  },
  {
    name: 'WARNING log level hides every marker: no guess, the verdict stays open',
    family: 'sglang',
    lines: ['Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:12<00:00,  3.1s/it]', 'Capturing batches (bs=1 avail_mem=14.10 GB): 100%|██████████| 36/36 [00:09<00:00,  3.9it/s]'],
    verdict: 'incomplete',
    stage: 'cuda_graph',
  },
  // --- success is subtle ----------------------------------------------------------------------
  {
    name: 'vLLM bind trap: startup complete, then the bind fails',
    family: 'vllm',
    lines: [
      ...vllmHealthyStart(),
      VLLM_STARTUP_COMPLETE,
      "(APIServer pid=1) ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use",
    ],
    verdict: 'failed',
    stage: 'http_server',
    cause: 'port_in_use',
    evidence: '[Errno 98]',
  },
  {
    name: 'vLLM startup complete with nothing after it is ready once the hold passes',
    family: 'vllm',
    lines: [...vllmHealthyStart(), VLLM_STARTUP_COMPLETE],
    idleMs: 5000,
    verdict: 'ready',
    stage: 'ready',
  },
  {
    name: 'SGLang: Uvicorn running and /v1/models 200 are not readiness',
    family: 'sglang',
    lines: [...sglangHealthyStart().slice(0, 17), '[2025-03-08 12:00:33] INFO:     127.0.0.1:40000 - "GET /v1/models HTTP/1.1" 200 OK'],
    verdict: 'incomplete',
  },
  {
    name: 'ready, then a crash on the first request: the start was ready',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart(),
      SGLANG_READY,
      sg('12:01:00', 'TpModelWorkerClient hit an exception: Traceback (most recent call last):'),
      '  File "/x/sglang/srt/managers/tp_worker.py", line 1, in forward',
      'triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 106496, Hardware limit: 101376',
      sg('12:01:00', 'Received sigquit from a child proces. It usually means the child failed.'),
      'Killed',
    ],
    verdict: 'ready',
    stage: 'ready',
  },
  // --- failure is subtle ----------------------------------------------------------------------
  {
    name: 'vLLM: the cause is the worker traceback, not "Engine core initialization failed"',
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 11),
      vl('12:00:49', 'WorkerProc failed to start.', { level: 'ERROR', proc: 'Worker_TP1 pid=9' }),
      vl('12:00:49', 'Traceback (most recent call last):', { level: 'ERROR', proc: 'Worker_TP1 pid=9' }),
      vl('12:00:49', '  File "/x/vllm/v1/core/kv_cache_utils.py", line 616, in _check_enough_kv_cache_memory', { level: 'ERROR', proc: 'Worker_TP1 pid=9' }),
      vl('12:00:49', '    raise ValueError("No available memory for the cache blocks. ")', { level: 'ERROR', proc: 'Worker_TP1 pid=9' }),
      vl('12:00:49', 'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`.', { level: 'ERROR', proc: 'Worker_TP1 pid=9' }),
      '(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
    ],
    verdict: 'failed',
    stage: 'kv_cache',
    cause: 'kv_cache_memory',
    evidence: 'ValueError: No available memory for the cache blocks',
  },
  {
    name: 'SGLang: scheduler traceback, then sigquit and a bare Killed (self-kill, not the OOM killer)',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart().slice(0, 5),
      sg('12:00:09', 'Scheduler hit an exception: Traceback (most recent call last):', 'TP1'),
      '  File "/x/sglang/srt/model_executor/model_runner.py", line 1, in load_model',
      '    self.model = get_model(...)',
      "KeyError: 'model.layers.0.mlp.gate.weight'",
      '',
      sg('12:00:09', 'Received sigquit from a child proces. It usually means the child failed.'),
      'Killed',
    ],
    verdict: 'failed',
    stage: 'load_weights',
    cause: 'crash',
    evidence: "KeyError: 'model.layers.0.mlp.gate.weight'",
  },
  {
    name: 'exit code -9 with no traceback is the OOM killer',
    family: 'sglang',
    lines: [...sglangHealthyStart().slice(0, 5), sg('12:05:09', 'Rank 0 scheduler is dead. Please check if there are relevant logs.'), sg('12:05:10', 'Exit code: -9')],
    verdict: 'failed',
    stage: 'load_weights',
    cause: 'host_oom',
    evidence: 'Exit code: -9',
  },
  {
    name: 'NCCL watchdog timeout: the what() and abort lines after it are symptoms',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart().slice(0, 3),
      '[rank1]:[E304 12:54:52.122982 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.',
      "terminate called after throwing an instance of 'c10::DistBackendError'",
      '  what():  [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated with exception: NCCL error',
      'Aborted (core dumped)',
    ],
    verdict: 'failed',
    stage: 'distributed_init',
    cause: 'nccl_timeout',
    evidence: 'Watchdog caught collective operation timeout',
  },
  {
    name: 'the first fatal exception wins over an unrelated traceback printed after it',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart().slice(0, 11),
      sg('12:00:23', 'Scheduler hit an exception: Traceback (most recent call last):', 'TP0'),
      '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 1, in capture',
      'Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 672.00 MiB.',
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.10/multiprocessing/resource_tracker.py", line 209, in main',
      "KeyError: '/mp-abc'",
      'Killed',
    ],
    verdict: 'failed',
    stage: 'cuda_graph',
    cause: 'gpu_oom',
    evidence: 'Capture cuda graph failed: CUDA out of memory',
  },
  {
    name: 'a source line quoting a message inside a traceback is not the cause',
    family: 'sglang',
    lines: [
      sg('12:00:05', 'Scheduler hit an exception: Traceback (most recent call last):', 'TP0'),
      '  File "/x/sglang/srt/distributed/pynccl.py", line 1, in init',
      '    raise RuntimeError(f"NCCL error: {error_str}")',
      'RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)',
    ],
    verdict: 'failed',
    cause: 'distributed_error',
    evidence: 'RuntimeError: NCCL error: unhandled system error',
  },
  // --- benign look-alikes ---------------------------------------------------------------------
  ...(
    [
      'node01:1234:1234 [0] NCCL WARN Call to bind failed: Address already in use',
      'INFO 03-08 12:00:06 [__init__.py:1] Failed to load NCCL library from libnccl.so.2. It is expected if you are not running on NVIDIA/AMD GPUs.',
      'Skipping import of cpp extensions due to incompatible torch version: undefined symbol: _ZN3c10',
      '[2025-03-08 12:00:06] INFO:     10.0.0.1:1 - "GET /health HTTP/1.1" 503 Service Unavailable',
      '[2025-03-08 12:00:06] INFO:     10.0.0.1:1 - "GET /v1/models HTTP/1.1" 429 Too Many Requests',
      "404 Client Error: Entry Not Found for url: https://huggingface.co/x/resolve/main/hf_quant_config.json",
      'Warning: quantization with this setting may lead to incorrect model outputs or CUDA errors.',
      'E0529 12:00:06.123456  1234 rdma_context.cpp:203] Failed to register memory 0x7f: Bad address [14]',
      sg('12:00:06', "The following error message 'operation scheduled before its operands' can be ignored.", 'TP0'),
      'loc("/x/decode_attention.py":1:2): error: operation scheduled before its operands',
    ] as const
  ).map((lookalike): Trap => ({
    name: `benign look-alike: ${lookalike.slice(0, 60)}`,
    family: 'sglang',
    lines: [...sglangHealthyStart().slice(0, 5), lookalike, ...sglangHealthyStart().slice(5), SGLANG_READY],
    verdict: 'ready',
    stage: 'ready',
  })),
  // --- time -----------------------------------------------------------------------------------
  {
    name: 'a hang after Init torch distributed begin is stalled at distributed_init',
    family: 'sglang',
    lines: sglangHealthyStart().slice(0, 3),
    idleMs: 3 * HOUR,
    verdict: 'stalled',
    stage: 'distributed_init',
  },
  {
    name: 'a long silent but healthy weight load is not stalled',
    family: 'sglang',
    lines: [...sglangHealthyStart().slice(0, 5), sg('12:40:07', 'Load weight end. type=X, avail mem=1 GB', 'TP0'), ...sglangHealthyStart().slice(8), SGLANG_READY],
    verdict: 'ready',
  },
  {
    name: 'a progress bar that keeps moving for 36 minutes on one physical line is progress',
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 12),
      `(EngineCore_DP0 pid=7) ${Array.from({ length: 37 }, (_, i) => `Capturing CUDA graphs (decode, FULL):  ${i}%|▎| ${i}/36 [${String(i).padStart(2, '0')}:00<01:00, 60s/it]`).join('\r')}`,
      vl('12:37:50', 'Graph capturing finished in 2173 secs, took 4.08 GiB'),
      ...vllmHealthyStart().slice(14),
      VLLM_STARTUP_COMPLETE,
    ],
    idleMs: 5000,
    verdict: 'ready',
  },
  {
    name: 'the same silence with a frozen bar is a stall',
    family: 'vllm',
    lines: [...vllmHealthyStart().slice(0, 12), '(EngineCore_DP0 pid=7) Capturing CUDA graphs (decode, FULL):   3%|▎| 1/36 [00:01<00:37, 1.10s/it]'],
    idleMs: 3 * HOUR,
    verdict: 'stalled',
    stage: 'cuda_graph',
  },
  {
    name: 'a repeating heartbeat is not progress (Ray placement group)',
    family: 'vllm',
    lines: [10, 30, 70, 150].map((s, i) => vl(`12:0${i}:00`, `Waiting for creating a placement group of specs for ${s} seconds. specs=[{'GPU': 1.0}]`, { proc: '' })),
    verdict: 'stalled',
    stage: 'distributed_init',
  },
  {
    name: 'the shm broadcast heartbeat of a long compile, repeated within the budget, is not a stall',
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 13),
      ...[1, 2, 3, 4, 5, 6, 7].map((m) => vl(`12:0${m}:00`, 'No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).', { level: 'WARNING' })),
    ],
    verdict: 'incomplete',
    stage: 'cuda_graph',
  },
  {
    name: 'the shm broadcast heartbeat repeated past the stage budget: a hang',
    family: 'vllm',
    lines: [
      ...vllmHealthyStart().slice(0, 13),
      ...Array.from({ length: 90 }, (_, i) => i + 1).map((m) =>
        vl(`${String(12 + Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00`, 'No available shared memory broadcast block found in 60 seconds.', { level: 'WARNING' }),
      ),
    ],
    verdict: 'stalled',
    stage: 'cuda_graph',
  },
  // --- runs -----------------------------------------------------------------------------------
  {
    name: 'EAGLE: the draft model loads again without being a restart',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart().slice(0, 12),
      sg('12:00:32', 'Init torch distributed begin.', 'TP0'),
      sg('12:00:32', 'Load weight begin. avail mem=14 GB', 'TP0'),
      sg('12:00:33', 'Load weight end. type=LlamaForCausalLMEagle, dtype=torch.bfloat16, avail mem=13 GB', 'TP0'),
      sg('12:00:33', 'Capture cuda graph begin. This can take up to several minutes. avail mem=13 GB', 'TP0'),
      ...sglangHealthyStart().slice(12),
      SGLANG_READY,
    ],
    verdict: 'ready',
  },
  {
    name: 'a stale ready line from an earlier run is not taken: the latest run fails',
    family: 'sglang',
    lines: [
      ...sglangHealthyStart(),
      SGLANG_READY,
      sg('13:00:00', "server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', tp_size=2)"),
      sg('13:00:05', 'Init torch distributed begin.', 'TP0'),
      sg('13:00:06', 'Load weight begin. avail mem=78.10 GB', 'TP0'),
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 114.00 MiB.',
    ],
    verdict: 'failed',
    stage: 'load_weights',
    cause: 'gpu_oom',
  },
  {
    name: 'a gap in the capture is not silence',
    family: 'sglang',
    lines: [...sglangHealthyStart().slice(0, 3), '# [... gap in source ...]', sg('18:00:05', 'Init torch distributed ends. mem usage=0.13 GB', 'TP0')],
    verdict: 'incomplete',
  },
];

describe('field-note traps', () => {
  it.for(traps)('$name', (trap) => {
    const { verdict } = classify(trap.family, trap.lines, trap.idleMs);
    expect(verdict.verdict).toBe(trap.verdict);
    if (trap.stage) expect(verdict.stage).toBe(trap.stage);
    if (trap.cause) expect(verdict.cause).toBe(trap.cause);
    if (trap.evidence) expect(verdict.evidence.map((e) => e.text).join('\n')).toContain(trap.evidence);
  });
});
