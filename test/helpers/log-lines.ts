/** Builders for realistic log lines in each server's own format (tests only). */

/** SGLang: `[2025-03-08 12:00:00 TP0] msg`. */
export function sg(time: string, message: string, rank?: string): string {
  return `[2025-03-08 ${time}${rank ? ` ${rank}` : ''}] ${message}`;
}

/** vLLM: `(EngineCore_DP0 pid=7) INFO 03-08 12:00:00 [core.py:12] msg`. */
export function vl(time: string, message: string, options: { level?: string; proc?: string; date?: string } = {}): string {
  const proc = options.proc === undefined ? '(EngineCore_DP0 pid=7) ' : options.proc === '' ? '' : `(${options.proc}) `;
  return `${proc}${options.level ?? 'INFO'} ${options.date ?? '03-08'} ${time} [core.py:12] ${message}`;
}

/** A healthy SGLang start up to (not including) the ready line. */
export function sglangHealthyStart(): string[] {
  return [
    sg('12:00:00', "server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', tp_size=2)"),
    sg('12:00:05', 'Init torch distributed begin.', 'TP0'),
    sg('12:00:05', 'Init torch distributed begin.', 'TP1'),
    sg('12:00:07', 'Init torch distributed ends. mem usage=0.13 GB', 'TP0'),
    sg('12:00:07', 'Load weight begin. avail mem=78.10 GB', 'TP0'),
    'Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]',
    'Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:12<00:00,  3.1s/it]',
    sg('12:00:20', 'Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=70.20 GB, mem usage=7.90 GB.', 'TP0'),
    sg('12:00:21', 'KV Cache is allocated. #tokens: 900000, K size: 27.00 GB, V size: 27.00 GB', 'TP0'),
    sg('12:00:21', 'Memory pool end. avail mem=15.20 GB', 'TP0'),
    sg('12:00:22', 'Capture cuda graph begin. This can take up to several minutes. avail mem=15.00 GB', 'TP0'),
    sg('12:00:31', 'Capture cuda graph end. Time elapsed: 9.30 s. mem usage=1.00 GB. avail mem=14.00 GB.', 'TP0'),
    sg('12:00:31', 'max_total_num_tokens=900000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, context_len=40960', 'TP0'),
    '[2025-03-08 12:00:32] INFO:     Started server process [1234]',
    '[2025-03-08 12:00:32] INFO:     Waiting for application startup.',
    '[2025-03-08 12:00:32] INFO:     Application startup complete.',
    '[2025-03-08 12:00:32] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)',
    '[2025-03-08 12:00:33] INFO:     127.0.0.1:40000 - "GET /get_model_info HTTP/1.1" 200 OK',
    sg('12:00:33', 'Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0', 'TP0'),
    '[2025-03-08 12:00:34] INFO:     127.0.0.1:40002 - "POST /generate HTTP/1.1" 200 OK',
  ];
}

export const SGLANG_READY = '[2025-03-08 12:00:34] The server is fired up and ready to roll!';

/** A healthy vLLM V1 start up to uvicorn's startup line (exclusive). */
export function vllmHealthyStart(): string[] {
  return [
    vl('12:00:00', 'vLLM API server version 0.9.1', { proc: 'APIServer pid=1' }),
    vl('12:00:00', "non-default args: {'model': 'Qwen/Qwen3-8B'}", { proc: 'APIServer pid=1' }),
    vl('12:00:10', "Initializing a V1 LLM engine (v0.9.1) with config: model='Qwen/Qwen3-8B'"),
    vl('12:00:15', 'rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0'),
    vl('12:00:16', 'Starting to load model Qwen/Qwen3-8B...'),
    '(EngineCore_DP0 pid=7) Loading safetensors checkpoint shards: 100% Completed | 5/5 [00:04<00:00,  1.2it/s]',
    vl('12:00:21', 'Loading weights took 4.30 seconds'),
    vl('12:00:22', 'Model loading took 7.63 GiB and 5.100000 seconds'),
    vl('12:00:30', 'Dynamo bytecode transform time: 6.04 s'),
    vl('12:00:45', 'torch.compile takes 20.50 s in total'),
    vl('12:00:48', 'Available KV cache memory: 58.10 GiB'),
    vl('12:00:48', 'GPU KV cache size: 846,000 tokens'),
    '(EngineCore_DP0 pid=7) Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:03<00:00, 20.1it/s]',
    vl('12:00:55', 'Graph capturing finished in 5 secs, took 0.61 GiB'),
    vl('12:00:55', 'init engine (profile, create kv cache, warmup model) took 33.10 seconds'),
    vl('12:00:56', 'Starting vLLM API server 0 on http://0.0.0.0:8000', { proc: 'APIServer pid=1' }),
    vl('12:00:56', 'Available routes are:', { proc: 'APIServer pid=1' }),
    '(APIServer pid=1) INFO:     Started server process [1]',
    '(APIServer pid=1) INFO:     Waiting for application startup.',
  ];
}

export const VLLM_STARTUP_COMPLETE = '(APIServer pid=1) INFO:     Application startup complete.';
