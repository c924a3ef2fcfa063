import { describe, expect, it } from 'vitest';
import { familyFromCommand } from '../../../src/cli/run/family.js';
import { FAMILIES, loadPack } from '../../../src/pack/load-pack.js';

const packs = FAMILIES.map((f) => loadPack(f));

describe('familyFromCommand', () => {
  it.for([
    { argv: ['python', '-m', 'sglang.launch_server', '--model-path', 'x'], family: 'sglang' },
    { argv: ['python3', '-m', 'sglang.srt.entrypoints.http_server'], family: 'sglang' },
    { argv: ['/usr/local/bin/sglang', 'serve', '--model-path', 'x'], family: 'sglang' },
    { argv: ['vllm', 'serve', 'Qwen/Qwen2.5-7B-Instruct'], family: 'vllm' },
    { argv: ['python', '-m', 'vllm.entrypoints.openai.api_server', '--model', 'x'], family: 'vllm' },
    { argv: ['python', '-m', 'sglang.launch_server', '--model-path', '/models/vllm-exported'], family: 'sglang' },
    { argv: ['./start-server.sh', 'vllm'], family: undefined },
    { argv: ['node', 'replay-log.mjs'], family: undefined },
  ])('$argv -> $family', ({ argv, family }) => {
    expect(familyFromCommand({ command: argv[0]!, args: argv.slice(1), packs })).toBe(family);
  });
});
