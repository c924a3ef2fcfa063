/**
 * The terminal goes away under a watch (an SSH drop): a real pty is closed, then SIGHUP. spinup
 * outlives it like a supervisor should: it goes on, keeps its log and history, says nothing more
 * than once, and exits with the verdict's code; never a native abort (Node 20's ResetStdio
 * assertion on a hung-up terminal).
 */
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run-main.js';
import { assertBuilt, BIN, FIXTURES, scratch, SERVERS, sleep } from './cli-child.js';

const { dir, env, cleanup } = scratch('terminal');
beforeAll(assertBuilt);
afterAll(cleanup);

const PTY = join(repoRoot, 'test/helpers/pty-hangup.py');
const OOM_LOG = join(FIXTURES, 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');

interface Hangup {
  code?: number;
  signal?: number;
  shown: string;
}

/** Runs `script` with sh on a pty that is hung up once `file` holds `text` (spinup is under way). */
async function onPtyThenHangup(when: { file: string; text: string }, script: string): Promise<Hangup> {
  const { stdout } = await promisify(execFile)('python3', [PTY, `${when.file}::${when.text}`, '/bin/sh', '-c', script], { cwd: dir, env: { ...env, BIN }, timeout: 90_000 });
  return JSON.parse(stdout) as Hangup;
}

/** Resolves once `file` holds `text`. */
async function untilFileHas(file: string, text: string): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    if (existsSync(file) && readFileSync(file, 'utf8').includes(text)) return;
    await sleep(50);
  }
  throw new Error(`${file} never held ${JSON.stringify(text)}`);
}

describe('the terminal hangs up', () => {
  it('13.2: run on a pty that is closed, then SIGHUP: supervision goes on, one message, the verdict code, no SIGABRT', async () => {
    const log = join(dir, 'run.log');
    const server = `node "${join(SERVERS, 'replay-log.mjs')}" --log "${OOM_LOG}" --speed 5 --max-gap-ms 300 --then exit1`;
    // stderr to a file: what spinup said after the terminal was gone can be counted.
    const result = await onPtyThenHangup({ file: `${log}.err`, text: 'stage launch' }, `exec "$BIN" run --log "${log}" -- ${server} 2>"${log}.err"`);
    const said = readFileSync(`${log}.err`, 'utf8');
    expect(result.signal, said).toBeUndefined();
    expect(result.code, said).toBe(1);
    expect(said).not.toContain('ResetStdio');
    expect(said).toContain('FAILED sglang  gpu_oom');
    expect(said.match(/cannot write to stdout/g), said).toHaveLength(1);
    expect(said).toContain('cannot write to stdout (EIO: the terminal is gone)');
    const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').sort();
    expect(lines(log)).toEqual(lines(OOM_LOG));
  });

  it('13.3: watch survives SIGHUP: it goes on, and records the start in the history at the end like a normal finish', async () => {
    const log = join(dir, 'server.log');
    const history = join(dir, 'history.jsonl');
    writeFileSync(log, "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n");
    const hungUp = onPtyThenHangup({ file: `${log}.err`, text: 'stage launch' }, `exec "$BIN" watch --history "${history}" "${log}" 2>"${log}.err"`);
    await untilFileHas(`${log}.err`, 'the terminal hung up (SIGHUP)');
    appendFileSync(log, '[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB\n');
    appendFileSync(log, '[2025-03-08 12:00:02] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 114.00 MiB.\n');
    const result = await hungUp;
    const said = readFileSync(`${log}.err`, 'utf8');
    expect(result, said).toMatchObject({ code: 1 });
    expect(said).toContain('the terminal hung up (SIGHUP)');
    expect(existsSync(history), said).toBe(true);
    const records = readFileSync(history, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { verdict: string; cause?: string });
    expect(records).toEqual([expect.objectContaining({ verdict: 'failed', cause: 'gpu_oom' })]);
  });

  it('13.2: only stdin is the terminal, opened read-only (stdout and stderr are files): no SIGABRT at exit either', async () => {
    const log = join(dir, 'stdin-only.log');
    writeFileSync(log, "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n");
    const hungUp = onPtyThenHangup({ file: `${log}.err`, text: 'stage launch' }, `exec "$BIN" watch --no-history "${log}" </dev/tty >"${log}.out" 2>"${log}.err"`);
    await untilFileHas(`${log}.err`, 'the terminal hung up (SIGHUP)');
    appendFileSync(log, '[2025-03-08 12:00:02] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 114.00 MiB.\n');
    const result = await hungUp;
    const said = readFileSync(`${log}.err`, 'utf8');
    expect(result, said).toMatchObject({ code: 1 });
    expect(readFileSync(`${log}.out`, 'utf8')).toContain('FAILED sglang  gpu_oom');
  });
});
