import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, until } from '../helpers/spinup-process.js';
import { READY_LOG, runScratch, SERVERS } from './run-harness.js';
import { repoRoot } from '../helpers/run-main.js';

// A reader of spinup's stdout that stops reading (`spinup run … | less`, left paused) must not
// reach the server through spinup: the built bin, its stdout a real pipe nobody reads until the
// verdict is in, and a server that logs a burst far larger than every buffer on the way.
const { tracker, dir } = runScratch();

const FLOOD_LINES = 30_000;

function readFileOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

describe('spinup run: a stdout nobody reads', () => {
  it('does not stall the server: READY, the log gets every line at once, the lines not shown are counted on stdout', async () => {
    const log = join(dir, 'paused-reader.log');
    const record = join(dir, 'paused-reader.record');
    const server = [process.execPath, `${SERVERS}/flood-server.mjs`, '--log', READY_LOG, '--flood-at', '3', '--flood-lines', String(FLOOD_LINES), '--record', record];
    const run = spawn(process.execPath, [BIN, 'run', '--pack', 'sglang', '--stall', '3s', '--log', log, '--then', 'true', '--', ...server], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    tracker.track(run.pid ?? 0);
    // Nobody reads stdout: the pipe fills, and so would anything that waited for it.
    run.stdout.pause();
    let stderr = '';
    run.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const match of stderr.matchAll(/started pid (\d+)/g)) tracker.track(Number(match[1]));
    });
    const code = new Promise<number | null>((resolve) => run.once('close', resolve));

    await until('a verdict on stderr', () => /^(READY|FAILED|STALLED)\b/m.exec(stderr)?.[1], 60_000);
    // The server's writes all went through while nothing was read from spinup's stdout.
    expect(readFileOr(record), stderr).toBe('flood written\nall written\n');
    expect(stderr).not.toMatch(/STALLED/);
    expect(stderr).toMatch(/^READY sglang/m);
    const logged = readFileSync(log, 'utf8');
    expect(logged.match(/^flood line \d+ /gm)).toHaveLength(FLOOD_LINES);
    expect(logged).toContain('The server is fired up and ready to roll!');

    // The reader comes back: what it was shown, plus one line that counts what it missed.
    let stdout = '';
    run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    run.stdout.resume();
    expect(await code, stderr).toBe(0);
    const notes = [...stdout.matchAll(/^spinup: (\d+) lines? not shown: stdout was not reading \(.*paused-reader\.log has every line\)$/gm)];
    expect(notes.length, stdout.slice(-2_000)).toBeGreaterThan(0);
    const notShown = notes.reduce((sum, note) => sum + Number(note[1]), 0);
    const shown = stdout.match(/^flood line \d+ /gm)?.length ?? 0;
    expect(shown).toBeGreaterThan(0);
    // Lines are shown whole or counted, never lost between the two: the rest of the log came after
    // the burst, so it too may have been counted rather than shown.
    const logLines = logged.split('\n').filter(Boolean).length;
    const shownLines = stdout.split('\n').filter((line) => line !== '' && !line.startsWith('spinup: ')).length;
    expect(shownLines + notShown).toBe(logLines);
  }, 90_000);

  it('a terminal that stops taking output (Ctrl-S): the server is not held up either', async () => {
    const log = join(dir, 'held-terminal.log');
    const record = join(dir, 'held-terminal.record');
    const server = [process.execPath, `${SERVERS}/flood-server.mjs`, '--log', READY_LOG, '--flood-at', '3', '--flood-lines', String(FLOOD_LINES), '--record', record];
    // The pty is not read until the server has written everything (or 30 s passed): a held screen.
    const command = [process.execPath, BIN, 'run', '--pack', 'sglang', '--stall', '3s', '--log', log, '--then', 'true', '--', ...server];
    const { stdout } = await promisify(execFile)('python3', [`${repoRoot}/test/helpers/pty-unread.py`, '30', record, 'all written', ...command], {
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 64 << 20,
      timeout: 90_000,
    });
    const result = JSON.parse(stdout) as { seen: boolean; code?: number; signal?: number; shown: string };
    expect(result.seen, result.shown.slice(-2_000)).toBe(true);
    expect(result.code, result.shown.slice(-2_000)).toBe(0);
    expect(result.shown).toMatch(/^READY sglang/m);
    expect(result.shown).toMatch(/^spinup: \d+ lines not shown: stdout was not reading/m);
    expect(readFileSync(log, 'utf8').match(/^flood line \d+ /gm)).toHaveLength(FLOOD_LINES);
  }, 120_000);
});
