/**
 * `node:util` parseArgs, with its errors said in our words: a mistyped flag gets a did-you-mean
 * from the command's own options, not the parser's advice about positionals.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `parseArgs(config)`; a parse error is a UsageError (exit 64) that says what was meant. */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    const args = config.args === undefined ? undefined : joinNegativeValues(config.args, config.options ?? {});
    return parseArgs(args === undefined ? config : { ...config, args });
  } catch (error) {
    throw new UsageError(parseErrorText(error, config.options ?? {}));
  }
}

/**
 * `--stall -5s` as `--stall=-5s`: parseArgs takes a value that starts with a dash for an option of
 * its own and calls it ambiguous ("wants a value"), though a negative number is plainly a value.
 * Joined, it reaches the option's own check, which says what the option wants (a positive duration).
 * Only before `--`: what follows is a command's own arguments.
 */
function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return [...joined, ...args.slice(i)];
    const next = args[i + 1];
    if (arg.startsWith('--') && !arg.includes('=') && options[arg.slice(2)]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

function parseErrorText(error: unknown, options: Options): string {
  const { code, message } = error as { code?: string; message: string };
  const flag = /'(-{1,2}[^'\s]+)/.exec(message)?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const near = flag?.startsWith('--') ? closest(flag.slice(2), Object.keys(options)) : undefined;
      return `unknown option ${flag ?? '?'}.${near ? ` Did you mean --${near}?` : ''}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = /'--([\w-]+)/.exec(message)?.[1];
      const option = name === undefined ? undefined : options[name];
      return option?.type === 'boolean' ? `--${name} takes no value` : `--${name ?? '?'} wants a value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? ''}`.trim();
    default:
      return message;
  }
}

/** The known name nearest to `typed`, if it is near enough to be what was meant. */
export function closest(typed: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

/** Edits from `a` to `b`: insert, delete, replace, or swap two neighbours (`--jsno`). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
