/**
 * `main` in-process with real files and a given stdin, for the hostile cases that need no real
 * process (fast: no node start-up per case). Returns the JSON events when `--json` was given.
 */
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { CAUSES, STAGES, VERDICTS } from '../../src/core/vocabulary.js';
import { Collect, repoRoot } from '../helpers/run-main.js';

export interface MainRun {
  code: number;
  stdout: string;
  stderr: string;
  events: Array<Record<string, unknown> & { type: string }>;
  verdict: (Record<string, unknown> & { verdict: string; stage: string; cause?: string }) | undefined;
}

/** Runs the CLI in-process; `stdin` is a byte string, or a stream of our own (one that fails, say). */
export async function runCli(argv: string[], options: { stdin?: Buffer | string | Readable; cwd?: string; signal?: AbortSignal } = {}): Promise<MainRun> {
  const stdout = new Collect();
  const stderr = new Collect();
  let stdin: Readable;
  if (options.stdin instanceof Readable) stdin = options.stdin;
  else {
    const pipe = new PassThrough();
    pipe.end(options.stdin ?? '');
    stdin = pipe;
  }
  // A bare env: no HOME, so no history is read or written.
  const code = await main({ argv, stdin, stdout, stderr, env: {}, cwd: options.cwd ?? repoRoot, signal: options.signal });
  const events = stdout.text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
  const verdict = events.filter((e) => e.type === 'verdict').at(-1) as MainRun['verdict'];
  return { code, stdout: stdout.text, stderr: stderr.text, events, verdict };
}

const EXIT_OF: Record<string, number> = { ready: 0, failed: 1, stalled: 2, incomplete: 3 };

/** The verdict is from the vocabulary, its stage and cause too, and the exit code is the verdict's. */
export function checkVerdictShape(run: MainRun): void {
  if (!run.verdict) throw new Error(`no verdict event\n${run.stdout}\n${run.stderr}`);
  const { verdict, stage, cause } = run.verdict;
  if (!(VERDICTS as readonly string[]).includes(verdict)) throw new Error(`verdict "${verdict}" is not in the vocabulary`);
  if (!(STAGES as readonly string[]).includes(stage)) throw new Error(`stage "${stage}" is not in the vocabulary`);
  if (cause !== undefined && !(CAUSES as readonly string[]).includes(cause)) throw new Error(`cause "${cause}" is not in the vocabulary`);
  if (run.code !== EXIT_OF[verdict]) throw new Error(`exit ${run.code} for a ${verdict} verdict`);
}
