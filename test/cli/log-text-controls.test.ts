/**
 * Control characters in a log never reach the terminal (issue 25, item 10). The line guard takes
 * out colour codes; what is left (BEL, backspace, a carriage return, a stray ESC, the C1 CSI
 * U+009B, a bidi override) would act on the terminal if printed as is: a backspace rewrites the
 * row that names the cause, ESC c resets the screen. Every command that prints log text shows
 * them as visible escapes instead. Real processes of the built bin, on real files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spinup } from '../helpers/spinup-process.js';
import { runFiles, stateHomes } from '../helpers/state-homes.js';

const scratch = mkdtempSync(join(tmpdir(), 'spinup-log-controls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const stateHome = stateHomes(scratch);

// What a terminal acts on: C0 but tab and newline, DEL, C1, bidi controls and the Unicode separators.
const ACTIVE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'CUDA out of memory.\x07\x08\x08\x08 Tried \u009b2J to \x1bc allocate \u202e114.00 MiB\x7f.';
const LOG = [
  "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='my\x07model')",
  '[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB',
  `[2025-03-08 12:00:02] torch.OutOfMemoryError: ${HOSTILE}`,
  '',
].join('\n');

const log = join(scratch, 'controls.log');
writeFileSync(log, LOG);

/** What a command printed, checked: no active control character, and the hostile ones shown as escapes. */
function expectShownSafe(printed: string): void {
  const active = ACTIVE.exec(printed);
  expect(active, `a raw U+${active?.[0].charCodeAt(0).toString(16).padStart(4, '0')} in:\n${printed}`).toBeNull();
  expect(printed).toContain('CUDA out of memory.\\x07\\x08\\x08\\x08 Tried \\x9b2J to \\x1bc allocate \\u202e114.00 MiB\\x7f.');
}

describe('control characters from the log are shown as visible escapes', () => {
  it('watch: the root-cause row of the verdict', async () => {
    const { env } = stateHome();
    const watch = spinup(['watch', '--no-follow', '--no-history', log], env);
    expect(await watch.code).toBe(1);
    expectShownSafe(watch.stdout() + watch.stderr());
  });

  it('explain: the annotated log line and the verdict', async () => {
    const { env } = stateHome();
    const explain = spinup(['explain', log], env);
    expect(await explain.code).toBe(1);
    expectShownSafe(explain.stdout() + explain.stderr());
  });

  it('status ID and attach ID of the ended start: its root cause and its model', async () => {
    const { env, runs } = stateHome();
    const watch = spinup(['watch', '--no-follow', '--no-history', '--quiet', log], env);
    expect(await watch.code).toBe(1);
    const [file] = runFiles(runs);
    const status = spinup(['status', file!.id], env);
    expect(await status.code).toBe(0);
    expectShownSafe(status.stdout() + status.stderr());
    expect(status.stdout()).toContain('my\\x07model');
    const attach = spinup(['attach', file!.id], env);
    await attach.code;
    expect(attach.stdout() + attach.stderr()).toContain('my\\x07model');
    expect(ACTIVE.exec(attach.stdout() + attach.stderr())).toBeNull();
  });

  it('history: the model name the log gave', async () => {
    const { env } = stateHome();
    const history = join(scratch, 'history.jsonl');
    const watch = spinup(['watch', '--no-follow', '--quiet', '--history', history, log], env);
    expect(await watch.code).toBe(1);
    const shown = spinup(['history', '--history', history], env);
    expect(await shown.code).toBe(0);
    expect(shown.stdout()).toContain('my\\x07model');
    expect(ACTIVE.exec(shown.stdout() + shown.stderr())).toBeNull();
  });

  it('run: the verdict of a server that printed the line', async () => {
    const { env } = stateHome();
    const server = join(scratch, 'server.mjs');
    writeFileSync(server, `process.stdout.write(${JSON.stringify(LOG)}); setTimeout(() => process.exit(1), 200);\n`);
    const run = spinup(['run', '--no-history', '--log', join(scratch, 'run.log'), '--', process.execPath, server], env);
    expect(await run.code).toBe(1);
    expectShownSafe(run.stderr());
  });
});
