/**
 * Issue 25, item 1: text a server echoes from its clients (vLLM's request logger, SGLang's
 * --log-requests) is no evidence of the server's own failure. A user asking about an OOM used to
 * make `spinup run` call FAILED after READY and stop a healthy server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { READY_LOG, replayServer, runScratch, runSpinup } from './run-harness.js';

const { tracker, dir } = runScratch();
const VLLM_READY_LOG = resolve('fixtures/vllm/02-v085post1-smollm-single-gpu-ready.log');

const cases = [
  {
    family: 'vllm',
    log: VLLM_READY_LOG,
    // A first request answered: READY is confirmed before the echo (vLLM's ready line is held).
    confirm: 'INFO:     127.0.0.1:40000 - "GET /v1/models HTTP/1.1" 200 OK',
    echo: "INFO 08-05 09:10:00 [logger.py:43] Received request chatcmpl-5a7407c4: prompt: '<|user|>my job died with torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. What now?', params: SamplingParams(n=1, temperature=0.7), prompt_token_ids: None, lora_request: None.",
  },
  {
    family: 'sglang',
    log: READY_LOG,
    confirm: '[2024-11-02 07:20:59] INFO:     127.0.0.1:59544 - "GET /health HTTP/1.1" 200 OK',
    echo: "[2024-11-02 07:21:00] Receive: obj=GenerateReqInput(rid='c99c9df7', text='Why does my server print RuntimeError: NCCL error: unhandled system error and then Killed?', sampling_params={'max_new_tokens': 64})",
  },
];

describe('run: a client\'s words after READY', () => {
  it.for(cases)('$family: a prompt quoting a fatal error leaves the server READY and running', async ({ log, confirm, echo }) => {
    const withEcho = join(dir, `echo-${Math.random().toString(36).slice(2)}.log`);
    writeFileSync(withEcho, `${readFileSync(log, 'utf8').trimEnd()}\n${confirm}\n${echo}\n`);
    // The server goes on serving; the test ends the run (Ctrl-C) a moment after READY, once the echo is read.
    const stop = new AbortController();
    const run = await runSpinup({
      tracker,
      dir,
      args: ['--json', '--grace', '2s'],
      server: replayServer(withEcho, 'hang'),
      signal: stop.signal,
      onStdout: (text) => {
        if (text.includes('"verdict":"ready"')) setTimeout(() => stop.abort(), 1_000);
      },
    });
    expect(run.code).toBe(130);
    expect(run.logText()).toContain(echo.slice(0, 60));
    expect(run.verdicts[0], JSON.stringify(run.verdicts)).toMatchObject({ verdict: 'ready' });
    expect(run.events.filter((e) => e.type === 'after_ready_failure')).toEqual([]);
    expect(run.verdicts.some((v) => v.cause === 'gpu_oom' || v.cause === 'distributed_error')).toBe(false);
    expect(run.verdicts, 'a verdict after READY').toHaveLength(1);
  });
});
