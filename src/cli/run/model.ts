/**
 * The model a launch command names, for the status API's `model` label before (or without) the
 * server's own argument dump: `vllm serve MODEL`, `--model MODEL`, `--model-path MODEL`.
 */
const MODEL_FLAGS = ['--model', '--model-path', '--model_path'];

export function modelFromCommand(args: readonly string[]): string | undefined {
  for (const [index, arg] of args.entries()) {
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (MODEL_FLAGS.includes(flag)) return inline ?? args[index + 1];
  }
  const serve = args.indexOf('serve');
  const next = serve === -1 ? undefined : args[serve + 1];
  return next !== undefined && !next.startsWith('-') ? next : undefined;
}
