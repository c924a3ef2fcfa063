/** The server family named by the launch command itself, so stall budgets apply from the first line. */
import { basename } from 'node:path';
import type { CompiledPack } from '../../core/pack-types.js';

/**
 * `python -m sglang.launch_server ...`, `sglang serve ...`, `vllm serve ...`,
 * `python -m vllm.entrypoints.openai.api_server ...`: each pack's `launch` patterns say which
 * commands are its own. Only the program and a `-m` module count: a model path that happens to
 * contain "vllm" must not decide. Undefined when the command does not say (a wrapper script).
 */
export function familyFromCommand(params: { command: string; args: readonly string[]; packs: readonly CompiledPack[] }): string | undefined {
  const { command, args, packs } = params;
  const candidates = [basename(command)];
  const module = args.indexOf('-m');
  if (module !== -1 && args[module + 1] !== undefined) candidates.push(args[module + 1]!);
  const found = new Set<string>();
  for (const candidate of candidates) {
    for (const pack of packs) if (pack.launch.some((rule) => rule.regex.test(candidate))) found.add(pack.name);
  }
  return found.size === 1 ? [...found][0] : undefined;
}
