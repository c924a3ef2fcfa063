/** The server family named by the launch command itself, so stall budgets apply from the first line. */
import { basename } from 'node:path';

const MARKERS: Array<{ family: string; pattern: RegExp }> = [
  { family: 'sglang', pattern: /^sglang(?:\.(?:launch_server|srt\b.*|entrypoints\b.*))?$/ },
  { family: 'vllm', pattern: /^vllm(?:\.entrypoints\b.*)?$/ },
];

/**
 * `python -m sglang.launch_server ...`, `sglang serve ...`, `vllm serve ...`,
 * `python -m vllm.entrypoints.openai.api_server ...`. Only the program and a `-m` module count: a model path
 * that happens to contain "vllm" must not decide. Undefined when the command does not say (a wrapper script).
 */
export function familyFromCommand(command: string, args: readonly string[]): string | undefined {
  const candidates = [basename(command)];
  const module = args.indexOf('-m');
  if (module !== -1 && args[module + 1] !== undefined) candidates.push(args[module + 1]!);
  const found = new Set<string>();
  for (const candidate of candidates) {
    for (const { family, pattern } of MARKERS) if (pattern.test(candidate)) found.add(family);
  }
  return found.size === 1 ? [...found][0] : undefined;
}
