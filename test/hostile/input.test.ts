/**
 * Hostile input, small enough to run in-process on real files: empty, blank, binary, invalid
 * UTF-8, CR/CRLF line ends, clocks that jump, two servers in one file. Nothing may crash, every
 * verdict comes from the vocabulary, and a real line after the garbage is still classified.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, scratch, sleep, STACK_TRACE } from './cli-child.js';
import { checkVerdictShape, runCli } from './in-process.js';
import { Random } from './random.js';

const { dir, cleanup } = scratch('input');
afterAll(cleanup);

let files = 0;
function file(content: Buffer | string): string {
  const path = join(dir, `case-${++files}.log`);
  writeFileSync(path, content);
  return path;
}

const READY_SGLANG = join(FIXTURES, 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const OOM_SGLANG = join(FIXTURES, 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
const READY_VLLM = join(FIXTURES, 'vllm/51-v072-v0-tp2-turing-xformers-ready.log');
const SEGFAULT = 'Fatal Python error: Segmentation fault';

describe('bytes that are not a clean log', () => {
  it('an empty file is INCOMPLETE (exit 3), not an error', async () => {
    const run = await runCli(['watch', '--json', '--no-follow', file('')]);
    checkVerdictShape(run);
    expect(run.verdict).toMatchObject({ verdict: 'incomplete', stage: 'none' });
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it('an empty file that is followed: waits, then --timeout ends it (exit 2) saying no line was seen', async () => {
    const run = await runCli(['watch', '--timeout', '1s', file('')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no log line seen yet');
  });

  it('only blank lines (LF, CRLF, spaces): INCOMPLETE at stage none', async () => {
    const run = await runCli(['watch', '--json', '--no-follow', file('\n'.repeat(5000) + '\r\n'.repeat(5000) + '   \t  \n'.repeat(100))]);
    checkVerdictShape(run);
    expect(run.verdict).toMatchObject({ verdict: 'incomplete', stage: 'none' });
  });

  it('binary data and NUL bytes: no crash, and the real failure line after them is still found', async () => {
    const random = new Random(7);
    const garbage = Buffer.concat([random.bytes(256 * 1024), Buffer.alloc(64 * 1024, 0), random.bytes(64 * 1024), Buffer.from('\0\0\0\n')]);
    // --pack: a bare segfault names no server, and with no sign of one there is no verdict (13.8).
    const run = await runCli(['watch', '--json', '--no-follow', '--pack', 'sglang', file(Buffer.concat([garbage, Buffer.from(`${SEGFAULT}\n`)]))]);
    checkVerdictShape(run);
    expect(run.verdict).toMatchObject({ verdict: 'failed', cause: 'native_crash' });
    expect(run.stderr).not.toMatch(STACK_TRACE);
  });

  it('NUL bytes inside a marker line do not hide the rest of the line', async () => {
    const run = await runCli(['watch', '--json', '--no-follow', '--pack', 'sglang', file(`\0\0[2025-03-08 12:00:00] \0server_args=ServerArgs(model_path='x')\n${SEGFAULT}\0\0\n`)]);
    checkVerdictShape(run);
    expect(run.verdict).toMatchObject({ verdict: 'failed', cause: 'native_crash' });
  });

  it('invalid UTF-8 is decoded with U+FFFD, never thrown: a failure line with bad bytes still matches', async () => {
    const bad = [Buffer.from([0xff, 0xfe]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf0, 0x90, 0x80]), Buffer.from([0xc0, 0xaf])];
    const lines = [
      Buffer.concat([Buffer.from("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='"), bad[0]!, Buffer.from("')\n")]),
      Buffer.concat([bad[1]!, bad[2]!, bad[3]!, bad[4]!, Buffer.from('\n')]),
      Buffer.concat([Buffer.from('[2025-03-08 12:00:05] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB '), bad[2]!, Buffer.from('\n')]),
    ];
    const run = await runCli(['watch', '--json', '--no-follow', file(Buffer.concat(lines))]);
    checkVerdictShape(run);
    expect(run.verdict).toMatchObject({ verdict: 'failed', cause: 'gpu_oom' });
    const evidence = (run.verdict!.evidence as Array<{ text: string }>).map((e) => e.text).join('\n');
    expect(evidence).toContain('CUDA out of memory');
    expect(evidence).toContain('\ufffd');
  });

  it('a multi-byte character split across pipe chunks is decoded whole', async () => {
    const stdin = new PassThrough();
    const line = Buffer.from('[2025-03-08 12:00:05] torch.OutOfMemoryError: CUDA out of memory (größe 2 GiB ✓)\n');
    const done = runCli(['watch', '--json', '--no-follow', '--pack', 'sglang', '-'], { stdin });
    for (let i = 0; i < line.length; i++) stdin.write(line.subarray(i, i + 1)); // one byte at a time
    stdin.end();
    const run = await done;
    checkVerdictShape(run);
    const evidence = (run.verdict!.evidence as Array<{ text: string }>).map((e) => e.text).join('\n');
    expect(evidence).toContain('größe 2 GiB ✓');
    expect(evidence).not.toContain('\ufffd');
  });

  it.for([
    { name: 'SGLang ready', log: READY_SGLANG },
    { name: 'SGLang CUDA OOM', log: OOM_SGLANG },
    { name: 'vLLM ready', log: READY_VLLM },
  ])('CRLF and lone-CR line ends give the verdict LF gives ($name)', async ({ log }) => {
    const text = readFileSync(log);
    const verdictOf = async (content: Buffer): Promise<unknown> => {
      const run = await runCli(['watch', '--json', '--no-follow', file(content)]);
      checkVerdictShape(run);
      const { verdict, stage, cause, rule } = run.verdict!;
      return { verdict, stage, cause, rule };
    };
    const lf = await verdictOf(text);
    expect(await verdictOf(Buffer.from(text.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'))).toEqual(lf);
    // Old Mac line ends, or one endless tqdm line: every \r frame is still read.
    expect(await verdictOf(Buffer.from(text.toString('latin1').replace(/\n/g, '\r'), 'latin1'))).toEqual(lf);
  });

  it('timestamps that go backwards and jump a year, read after the fact: READY, no false stall', async () => {
    const log = [
      "[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')",
      '[2025-03-08 11:00:00] Init torch distributed begin.', // an hour back
      '[2026-03-08 11:00:05] Load weight begin. avail mem=70.00 GB', // a year ahead
      '[2024-01-01 00:00:00] Capture cuda graph begin. avail mem=10.00 GB', // two years back
      '[2025-03-08 12:00:30] The server is fired up and ready to roll!',
    ];
    const run = await runCli(['watch', '--json', '--no-follow', file(`${log.join('\n')}\n`)]);
    checkVerdictShape(run);
    expect(run.verdict).toMatchObject({ verdict: 'ready' });
    expect(run.verdict!.elapsed_ms as number).toBeLessThan(60 * 60_000);
  });

  it('timestamps that go backwards and jump a year, live: READY, no false stall', async () => {
    const path = file("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n");
    const done = runCli(['watch', '--json', '--timeout', '5s', path]);
    for (const line of [
      '[2025-03-08 11:00:00] Init torch distributed begin.',
      '[2026-03-08 11:00:05] Load weight begin. avail mem=70.00 GB',
      '[2024-01-01 00:00:00] Capture cuda graph begin. avail mem=10.00 GB',
      '[2025-03-08 12:00:30] The server is fired up and ready to roll!',
    ]) {
      await sleep(100);
      appendFileSync(path, `${line}\n`);
    }
    const run = await done;
    checkVerdictShape(run);
    expect(run.verdict).toMatchObject({ verdict: 'ready' });
  });

  // Live, a jump of the log's clock under CLOCK_JUMP_MS (a DST change, an NTP step) must not count
  // as silence when the wall clock says a second passed.
  it('live, a one-hour forward jump of the log clock (DST) is not an hour of silence', async () => {
    const path = file("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n");
    const done = runCli(['watch', '--json', '--timeout', '5s', path]);
    await sleep(300);
    appendFileSync(path, '[2025-03-08 13:00:01] Init torch distributed begin.\n');
    await sleep(100);
    appendFileSync(path, '[2025-03-08 13:00:02] The server is fired up and ready to roll!\n');
    const run = await done;
    expect(run.verdict).toMatchObject({ verdict: 'ready' });
  });

  it('an SGLang and a vLLM log interleaved line by line: a verdict from the vocabulary, no crash', async () => {
    const a = readFileSync(READY_SGLANG, 'utf8').split('\n');
    const b = readFileSync(READY_VLLM, 'utf8').split('\n');
    const mixed: string[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) mixed.push(...[a[i], b[i]].filter((l): l is string => l !== undefined));
    for (const pack of [[], ['--pack', 'sglang'], ['--pack', 'vllm']]) {
      const run = await runCli(['watch', '--json', '--no-follow', ...pack, file(mixed.join('\n'))]);
      checkVerdictShape(run);
      expect(run.stderr).not.toMatch(STACK_TRACE);
    }
  });
});
