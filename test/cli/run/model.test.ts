import { describe, expect, it } from 'vitest';
import { modelFromCommand } from '../../../src/cli/run/model.js';

describe('modelFromCommand', () => {
  it.for([
    [['serve', 'Qwen/Qwen2.5-7B-Instruct', '--port', '8000'], 'Qwen/Qwen2.5-7B-Instruct'],
    [['-m', 'sglang.launch_server', '--model-path', '/models/llama', '--tp', '2'], '/models/llama'],
    [['-m', 'vllm.entrypoints.openai.api_server', '--model=meta/llama'], 'meta/llama'],
    [['serve', '--port', '8000'], undefined],
    [['bench.py'], undefined],
  ] as const)('%j -> %s', ([args, model]) => {
    expect(modelFromCommand(args)).toBe(model);
  });
});
