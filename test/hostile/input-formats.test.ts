/**
 * Inputs people have (issue 13, item 9): a rotated log compressed by logrotate (.gz), a log saved
 * on Windows (UTF-16 with a BOM), docker's json-file log, and a last line written without its
 * newline while spinup follows. Each is made with the real tool where there is one (gzip, iconv),
 * from a shipped fixture, and must give the verdict the plain log gives.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURES, killAll, scratch, sleep, spawnCli, STACK_TRACE } from './cli-child.js';

const { dir, env, cleanup } = scratch('formats');
beforeAll(assertBuilt);
afterEach(killAll);
afterAll(cleanup);

const OOM = join(FIXTURES, 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const READY = join(FIXTURES, 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log');

let cases = 0;
function write(name: string, bytes: Buffer | string): string {
  const path = join(dir, `${++cases}-${name}`);
  writeFileSync(path, bytes);
  return path;
}

async function watchNoFollow(path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const w = spawnCli(['watch', '--no-history', '--no-follow', path], { cwd: dir, env });
  const exit = await w.finished(20_000);
  return { code: exit.code, stdout: w.stdout, stderr: w.stderr };
}

/** The verdict block of the plain fixture, the reference every encoding must give. */
let plain: { code: number | null; stdout: string };
beforeAll(async () => {
  plain = await watchNoFollow(OOM);
  expect(plain.stdout).toContain('FAILED sglang  gpu_oom');
});

describe('13.9: inputs people have', () => {
  it('13.9: watch --no-follow old.log.gz reads it decompressed (real gzip): the same verdict as the plain log', async () => {
    const gz = write('server.log.gz', execFileSync('gzip', ['-c', OOM]));
    const run = await watchNoFollow(gz);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe(plain.stdout);
    expect(run.stderr).toContain('gzip-compressed');
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it('13.9: a followed .gz is read decompressed, also as it grows, and spinup says what it does', async () => {
    const whole = execFileSync('gzip', ['-c', READY]);
    const gz = write('growing.log.gz', whole.subarray(0, Math.floor(whole.length / 2)));
    const w = spawnCli(['watch', '--no-history', '--timeout', '60s', gz], { cwd: dir, env });
    await w.untilStderr('gzip-compressed', 10_000);
    await sleep(300);
    appendFileSync(gz, whole.subarray(Math.floor(whole.length / 2)));
    expect(await w.finished(20_000), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stdout).toMatch(/^READY sglang/m);
    expect(w.stdout).toContain('decided by line 82');
  });

  it('13.9: a UTF-16 log with a BOM (saved on Windows; real iconv) is decoded: the same verdict', async () => {
    const utf16 = write('windows.log', execFileSync('iconv', ['-f', 'UTF-8', '-t', 'UTF-16', OOM]));
    expect([...utf16Bom(utf16)]).toEqual(expect.arrayContaining([0xff, 0xfe]));
    const run = await watchNoFollow(utf16);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe(plain.stdout);
    expect(run.stderr).toContain('UTF-16');
  });

  it('13.9: a UTF-16 log on stdin is decoded too', async () => {
    const w = spawnCli(['watch', '--no-history', '-'], { cwd: dir, env });
    w.child.stdin!.end(execFileSync('iconv', ['-f', 'UTF-8', '-t', 'UTF-16BE', OOM]));
    expect(await w.finished(20_000), w.dump()).toEqual({ code: 1, signal: null });
    expect(w.stdout).toContain('FAILED sglang  gpu_oom');
  });

  it('13.9: docker json-file lines are unwrapped: the same verdict, with the lines of the log', async () => {
    // As docker writes it: each entry stamped when it was printed (here: the server's own time, or
    // the last one for lines without it), the stream it came from.
    let time = '2025-04-20T14:03:00';
    const docker = readFileSync(OOM, 'utf8')
      .split(/(?<=\n)/)
      .map((log, i) => {
        const own = /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)/.exec(log);
        if (own) time = `${own[1]}T${own[2]}`;
        return `${JSON.stringify({ log, stream: /Traceback|Error/.test(log) ? 'stderr' : 'stdout', time: `${time}.${String(i).padStart(9, '0')}Z` })}\n`;
      })
      .join('');
    const run = await watchNoFollow(write('container-json.log', docker));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('FAILED sglang  gpu_oom');
    expect(run.stdout).toContain('root cause line 106:');
    expect(run.stdout).toContain('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 114.00 MiB');
    expect(run.stdout).not.toContain('{"log"');
    expect(run.stderr).toContain('docker json-file');
  });

  it("13.9: docker json-file: each entry's time is the line's time (untimed lines two hours apart stall)", async () => {
    const entries = [
      { log: "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n", time: '2025-03-08T12:00:00.000000001Z' },
      { log: '[2025-03-08 12:00:01] Load weight begin. avail mem=70.00 GB\n', time: '2025-03-08T12:00:01.000000001Z' },
      { log: 'Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]\n', time: '2025-03-08T12:00:02.000000001Z' },
      { log: 'still here, says nothing\n', time: '2025-03-08T14:30:00.000000001Z' },
    ];
    const docker = entries.map((e) => `${JSON.stringify({ ...e, stream: 'stderr' })}\n`).join('');
    const run = await watchNoFollow(write('timed-json.log', docker));
    expect(run.stdout, run.stderr).toMatch(/^STALLED sglang  in stage load_weights/m);
    expect(run.code).toBe(2);
    // The same lines without docker's times say nothing about the two hours.
    const bare = await watchNoFollow(write('untimed.log', entries.map((e) => e.log).join('')));
    expect(bare.code).toBe(3);
  });

  it('13.9: a last line without a newline is classified in follow mode after a short quiet, as tail -F shows it', async () => {
    const log = write('no-newline.log', "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n");
    const w = spawnCli(['watch', '--no-history', '--timeout', '60s', log], { cwd: dir, env });
    await w.untilStderr('stage launch', 10_000);
    appendFileSync(log, '[2025-03-08 12:00:09] The server is fired up and ready to roll!');
    expect(await w.finished(15_000), w.dump()).toEqual({ code: 0, signal: null });
    expect(w.stdout).toContain('decided by line 2: [2025-03-08 12:00:09] The server is fired up and ready to roll!');
  });

  it('13.9: a last line without a newline on a pipe that stays open is classified too', async () => {
    const w = spawnCli(['watch', '--no-history', '--timeout', '60s', '-'], { cwd: dir, env });
    w.child.stdin!.write("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n[2025-03-08 12:00:02] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB");
    expect(await w.finished(15_000), w.dump()).toEqual({ code: 1, signal: null });
    expect(w.stdout).toContain('FAILED sglang  gpu_oom');
  });

  it('13.9: a first line shorter than what format detection looks at is not held back on a live pipe', async () => {
    const w = spawnCli(['watch', '--no-history', '--pack', 'sglang', '--timeout', '2s', '-'], { cwd: dir, env });
    w.child.stdin!.write('hi\n'); // and the pipe stays open, silent
    expect(await w.finished(15_000), w.dump()).toEqual({ code: 2, signal: null });
    expect(w.stderr).toContain('last line 1: hi');
  });
});

function utf16Bom(path: string): Buffer {
  return readFileSync(path).subarray(0, 2);
}

describe('25.9: a .gz cut short is said to be damaged, not read as a whole log', () => {
  /** READY's gzip cut before its end (and before its ready line), as a copy made while gzip still wrote it. */
  function cutGz(name: string): string {
    const whole = execFileSync('gzip', ['-c', READY]);
    const gz = write(name, whole.subarray(0, Math.floor(whole.length * 0.6)));
    // The real tool agrees that it is cut short.
    expect(() => execFileSync('gzip', ['-t', gz], { stdio: 'pipe' })).toThrow(/unexpected end of file/);
    return gz;
  }
  const DAMAGED = /is damaged: its gzip data stops in the middle \(gzip -t: unexpected end of file\)/g;

  it.for([
    { how: 'the lines', flags: [] },
    { how: '--quiet', flags: ['--quiet'] },
  ])('25.9: watch --no-follow cut.log.gz ($how): what it held is read, one message says it is damaged, INCOMPLETE (exit 3)', async ({ flags }) => {
    const gz = cutGz('cut.log.gz');
    const w = spawnCli(['watch', '--no-history', '--no-follow', ...flags, gz], { cwd: dir, env });
    const exit = await w.finished(20_000);
    expect(exit.code, w.dump()).toBe(3);
    expect(w.stdout).toMatch(/^INCOMPLETE sglang/m);
    expect(w.stderr.match(DAMAGED), w.stderr).toHaveLength(1);
    expect(w.stderr).toContain(`${gz} is damaged`);
    expect(w.stderr).not.toMatch(STACK_TRACE);
  });

  it('25.9: the same bytes on a pipe (zcat-less: watch -): said the same way', async () => {
    const gz = cutGz('piped.log.gz');
    const w = spawnCli(['watch', '--no-history', '-'], { cwd: dir, env });
    w.child.stdin!.end(readFileSync(gz));
    const exit = await w.finished(20_000);
    expect(exit.code, w.dump()).toBe(3);
    expect(w.stderr.match(DAMAGED), w.stderr).toHaveLength(1);
    expect(w.stderr).toContain('stdin is damaged');
  });

  it('25.9: a whole .gz is not called damaged', async () => {
    const gz = write('whole.log.gz', execFileSync('gzip', ['-c', READY]));
    const w = spawnCli(['watch', '--no-history', '--no-follow', gz], { cwd: dir, env });
    expect((await w.finished(20_000)).code, w.dump()).toBe(0);
    expect(w.stderr).not.toContain('damaged');
  });
});
