import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../src/core/line-guard.js';
import { describeSettings, mergeFacts, parseArgList, StartFactsReader, type StartFacts } from '../../src/core/start-facts.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';

// The argument dumps the shipped packs declare (start_facts), read as one reader.
const reader = new StartFactsReader(FAMILIES.map((f) => loadPack(f)));
const extractStartFacts = (line: string): StartFacts | undefined => reader.read(line);

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));

function factsOfFixture(file: string): StartFacts | undefined {
  let facts: StartFacts | undefined;
  for (const line of readFileSync(join(fixtures, file), 'utf8').split('\n')) {
    const found = extractStartFacts(stripAnsi(line));
    if (found) facts = mergeFacts(facts ?? {}, found);
  }
  return facts;
}

describe('extractStartFacts', () => {
  it.for<[string, string, StartFacts | undefined]>([
    [
      'SGLang server_args, speculative off (its draft-token default is not speculation)',
      "[2025-03-08 12:28:55] server_args=ServerArgs(model_path='/home/user/Qwen/QwQ-32B', tokenizer_path='/home/user/Qwen/QwQ-32B', quantization=None, tp_size=4, speculative_algorithm=None, speculative_draft_model_path=None, speculative_num_draft_tokens=8)",
      { model: '/home/user/Qwen/QwQ-32B', tp: 4 },
    ],
    [
      'SGLang EAGLE3 (draft_model_path= must not be read as model_path=)',
      "server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', quantization='fp8', tp_size=2, speculative_algorithm='EAGLE3', speculative_draft_model_path='jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B', speculative_num_draft_tokens=32)",
      { model: 'meta-llama/Llama-3.1-8B-Instruct', tp: 2, quantization: 'fp8', speculative: { method: 'EAGLE3', draft: 'jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B', tokens: 32 } },
    ],
    [
      'SGLang dump cut off by the capture',
      "[2024-11-02 10:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', tokenizer_path='meta-llama/Llama-3.1-8B-Instruct', tokenizer_mode='auto', chat_templ",
      { model: 'meta-llama/Llama-3.1-8B-Instruct' },
    ],
    [
      'vLLM non-default args (tp absent = its default, 1), a nested speculative dict',
      "INFO 05-02 10:00:00 [utils.py:233] non-default args: {'model_tag': 'poolside/Laguna-S-2.1-INT4', 'host': '0.0.0.0', 'model': 'poolside/Laguna-S-2.1-INT4', 'speculative_config': {'model': 'poolside/Laguna-S-2.1-DFlash-INT4', 'num_speculative_tokens': 15}}",
      { model: 'poolside/Laguna-S-2.1-INT4', tp: 1, speculative: { draft: 'poolside/Laguna-S-2.1-DFlash-INT4', tokens: 15 } },
    ],
    [
      'vLLM non-default args with tp and quantization',
      "non-default args: {'model': 'Qwen/Qwen2.5-14B-Instruct-AWQ', 'tensor_parallel_size': 2, 'quantization': 'awq', 'served_model_name': ['a, b']}",
      { model: 'Qwen/Qwen2.5-14B-Instruct-AWQ', tp: 2, quantization: 'awq' },
    ],
    [
      'vLLM args: Namespace (model_tag wins: `vllm serve MODEL`)',
      "INFO 04-30 10:00:00 api_server.py:1043] args: Namespace(subparser='serve', model_tag='/opt/llm/deepseek-r1-14b', config='', allowed_origins=['*'], model='facebook/opt-125m', tensor_parallel_size=4, quantization=None, speculative_config=None)",
      { model: '/opt/llm/deepseek-r1-14b', tp: 4 },
    ],
    [
      'vLLM V1 engine config: SpeculativeConfig(...) holds its own model=',
      "INFO 05-02 10:00:01 [core.py:77] Initializing a V1 LLM engine (v0.25.1) with config: model='poolside/Laguna-S-2.1-NVFP4', speculative_config=SpeculativeConfig(method='dflash', model='poolside/Laguna-S-2.1-DFlash-NVFP4', num_spec_tokens=15), tokenizer='poolside/Laguna-S-2.1-NVFP4', tensor_parallel_size=1, quantization=compressed-tensors, enforce_eager=False",
      { model: 'poolside/Laguna-S-2.1-NVFP4', tp: 1, quantization: 'compressed-tensors', speculative: { method: 'dflash', draft: 'poolside/Laguna-S-2.1-DFlash-NVFP4', tokens: 15 } },
    ],
    [
      'MTP drafts with the target model itself: no draft named',
      "with config: model='unsloth/Qwen3.8-27B-NVFP4', speculative_config=SpeculativeConfig(method='mtp', model='unsloth/Qwen3.8-27B-NVFP4', num_spec_tokens=3), tensor_parallel_size=1, quantization=None",
      { model: 'unsloth/Qwen3.8-27B-NVFP4', tp: 1, speculative: { method: 'mtp', tokens: 3 } },
    ],
    ['an ordinary line', 'INFO 05-02 10:00:01 [core.py:77] Loading weights took 3.2 seconds', undefined],
    ['a line that mentions args in passing', "WARNING the args: you passed 'model' twice", undefined],
  ])('%s', ([, line, expected]) => {
    expect(extractStartFacts(line)).toEqual(expected);
  });

  it('merges the engine line over the argument dump (the dump lacks the method)', () => {
    const dump = extractStartFacts("non-default args: {'model': 'm', 'speculative_config': {'model': 'd', 'num_speculative_tokens': 15}}")!;
    const engine = extractStartFacts("with config: model='m', speculative_config=SpeculativeConfig(method='dflash', model='d', num_spec_tokens=15), tensor_parallel_size=1")!;
    expect(mergeFacts(dump, engine)).toEqual({ model: 'm', tp: 1, speculative: { method: 'dflash', draft: 'd', tokens: 15 } });
  });
});

describe('describeSettings', () => {
  it.for<[StartFacts, string]>([
    [{}, '-'],
    [{ model: 'm' }, 'tp?'],
    [{ model: 'm', tp: 8, quantization: 'fp8' }, 'tp8 fp8'],
    [{ model: 'm', tp: 1, speculative: { method: 'EAGLE', draft: '/raid/models/sglang-EAGLE-8B/', tokens: 16 } }, 'tp1 EAGLE sglang-EAGLE-8B n=16'],
    [{ model: 'm', tp: 1, speculative: { draft: 'org/draft' } }, 'tp1 spec draft'],
  ])('%o reads %s', ([facts, text]) => {
    expect(describeSettings(facts)).toBe(text);
  });
});

describe('parseArgList', () => {
  it('splits at top-level commas only, through quotes, brackets and nested calls', () => {
    const text = "X(a='x, y', b=[1, 2], c=Cfg(d=(3, 4), e='))'), f=\"q\\\"uote\", g=None)";
    const args = parseArgList(text, 2, ')');
    expect([...args.entries()]).toEqual([
      ['a', "'x, y'"],
      ['b', '[1, 2]'],
      ['c', "Cfg(d=(3, 4), e='))')"],
      ['f', '"q\\"uote"'],
      ['g', 'None'],
    ]);
  });

  it('stops at the closing bracket and keeps the first of repeated keys', () => {
    expect([...parseArgList("{'a': 1, 'a': 2} trailing, b=3", 1, '}').entries()]).toEqual([['a', '1']]);
  });
});

describe('on the shipped fixtures', () => {
  it.for<[string, string, string]>([
    ['sglang/09-tp4-l4-qwq32b-ready-health-polls.log', '/home/user/Qwen/QwQ-32B', 'tp4'],
    ['sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log', 'google/gemma-3-12b-it', 'tp1 fp8'],
    ['sglang/42-docs-ci-2025-08-eagle3-llama31-8b-ready.log', 'meta-llama/Llama-3.1-8B-Instruct', 'tp1 EAGLE3 sglang-EAGLE3-Llama-3.1-Instruct-8B n=32'],
    ['vllm/50-v0100-tp8-qwen3-235b-fp8-ready.log', '/home/user/P12/shareP12/models/Qwen3-235B-A22B-FP8', 'tp8 fp8'],
    ['vllm/13-v0251-dgx-spark-mtp-spec-nvfp4-ready.log', 'unsloth/Qwen3.8-27B-NVFP4', 'tp1 compressed-tensors mtp n=3'],
    ['vllm/51-v072-v0-tp2-turing-xformers-ready.log', 'Qwen/Qwen2.5-14B-Instruct', 'tp2'],
  ])('%s: %s %s', ([file, model, settings]) => {
    const facts = factsOfFixture(file)!;
    expect(facts.model).toBe(model);
    expect(describeSettings(facts)).toBe(settings);
  });

  it('every SGLang server_args line names its model', () => {
    const files = readdirSync(join(fixtures, 'sglang')).filter((f) => f.endsWith('.log'));
    const withArgs = files.filter((f) => readFileSync(join(fixtures, 'sglang', f), 'utf8').includes('ServerArgs(model_path='));
    expect(withArgs.length).toBeGreaterThan(20);
    for (const file of withArgs) expect(factsOfFixture(`sglang/${file}`)?.model, file).toBeTruthy();
  });
});
