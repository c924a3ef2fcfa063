/** `main` is the whole CLI as a function: arguments and streams in, an exit code out. */
import { EXIT } from '../core/exit-codes.js';
import { PackError, formatDiagnostic } from '../pack/diagnostic.js';
import { InputError, ListenError, UsageError } from './errors.js';
import { write, type Io } from './io-context.js';
import { guardOutput } from './output-guard.js';
import { version } from './version.js';

type Command = (args: string[], io: Io) => Promise<number>;

// Each command is loaded only when used: `watch` should not pay for lint's regex analysers.
const COMMANDS: Record<string, () => Promise<Command>> = {
  watch: async () => (await import('./commands/watch.js')).watchCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
  lint: async () => (await import('./commands/lint.js')).lintCommand,
  explain: async () => (await import('./commands/explain.js')).explainCommand,
  history: async () => (await import('./commands/history.js')).historyCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
  attach: async () => (await import('./commands/attach.js')).attachCommand,
  probe: async () => (await import('./commands/probe.js')).probeCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
};

export const mainHelp = `spinup: is the LLM server up, did it fail and why, or is it stuck, and where?

Usage: spinup <command> [options]

Commands:
  watch [FILE|-]        classify a server log: follow a file like tail -F, or read stdin (-)
  run [opts] -- CMD...  launch the server, tee its log, and supervise the process too
  replay [PATH|GLOB...] check the rule packs against captured logs (default: fixtures)
  lint [PACK...]        validate rule packs: schema, regexes, ids, provenance
  explain FILE          show which rule matched which line, and why the verdict
  history               past starts and what is normal for this model on this host
  status [ID]           the starts being watched on this host, and recent ones
  attach [ID]           follow a start another spinup watches, from any terminal
  probe URL|ID          one question to a watched start (--startup --ready --live): exit 0/1
  report LOG...         one self-contained HTML timeline of starts (or --history)

Run 'spinup <command> --help' for the options of one command.

Exit codes: 0 ready (or all passed) · 1 failed · 2 stalled · 3 input ended with no verdict
            64 usage error · 66 input not found (or the working directory is gone)
            69 --listen port in use
            70 internal error · 78 invalid rule pack
            130 interrupted`;

export async function main(io: Io): Promise<number> {
  const [name, ...args] = io.argv;
  guardOutput(io, name ?? '');
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    write(name === undefined ? io.stderr : io.stdout, `${mainHelp}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    write(io.stdout, `spinup ${version()}\n`);
    return EXIT.ok;
  }
  // Not a command for people: the single executable's drainer of a server kept by --keep-on-fail (log-drainer.ts).
  if (name === '__drain') {
    (await import('../io/supervise/log-drainer.js')).runDrainer(args);
    return EXIT.ok;
  }
  const load = COMMANDS[name];
  if (!load) {
    write(io.stderr, `spinup: unknown command "${name}". Run 'spinup --help' for the list.\n`);
    return EXIT.usage;
  }
  try {
    return await (await load())(args, io);
  } catch (error) {
    return reportError(error, io, name);
  }
}

function reportError(error: unknown, io: Io, command: string): number {
  if (error instanceof PackError) {
    for (const d of error.diagnostics) write(io.stderr, `${formatDiagnostic(d)}\n`);
    write(io.stderr, `spinup ${command}: the rule pack is invalid (fix the lines above; 'spinup lint' checks a pack).\n`);
    return EXIT.badPack;
  }
  if (error instanceof UsageError || isParseArgsError(error)) {
    write(io.stderr, `spinup ${command}: ${(error as Error).message}\nRun 'spinup ${command} --help' for usage.\n`);
    return EXIT.usage;
  }
  if (error instanceof ListenError) {
    write(io.stderr, `spinup ${command}: ${error.message}\n`);
    return EXIT.unavailable;
  }
  if (error instanceof InputError) {
    write(io.stderr, `spinup ${command}: ${error.message}\n`);
    return EXIT.noInput;
  }
  if (isSystemError(error)) {
    // The file system said no (EIO on a bad disk, ENXIO on a socket...): the input, not a bug in spinup.
    const path = error.path !== undefined && !error.message.includes(error.path) ? `${error.path}: ` : '';
    write(io.stderr, `spinup ${command}: ${path}${error.message}\n`);
    return EXIT.noInput;
  }
  write(io.stderr, internalErrorReport(error, `in '${command}'`));
  return EXIT.internal;
}

/** What a bug looks like to the user (exit 70): the version, a request to report it, the stack. */
export function internalErrorReport(error: unknown, where: string): string {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return `spinup ${version()}: internal error ${where}. This is a bug; please report it with the lines below.\n${detail}\n`;
}

/** An error from the operating system (errno code and syscall), as Node's fs and net raise them. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return error instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code) && typeof syscall === 'string';
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
