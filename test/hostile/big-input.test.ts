/**
 * Big input through a real pipe into the built CLI, generated on the fly (never on disk): one
 * line of 1 GB with no newline, and millions of lines of one repeated heartbeat. Memory must stay
 * bounded (peak RSS from /proc/PID/status VmHWM), nothing may be lost, and each case is bounded.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, pump, scratch, spawnCli, STACK_TRACE } from './cli-child.js';

const { dir, env, cleanup } = scratch('big');
beforeAll(assertBuilt);
afterEach(killAll);
afterAll(cleanup);

const MiB = 1024 * 1024;
/** A test bound, not a target: the CLI peaks near 100 MB on these inputs. */
const RSS_BOUND_KB = 200 * 1024;

describe('big input on a pipe', () => {
  it('one 1 GB line with no newline: capped, still classified, the excess counted and reported, memory bounded', async () => {
    // --pack: a bare segfault names no server, and with no sign of one there is no verdict (13.8).
    const w = spawnCli(['watch', '--no-history', '--pack', 'sglang', '-'], { cwd: dir, env }).watchMemory();
    const stdin = w.child.stdin!;
    stdin.write('Fatal Python error: Segmentation fault ');
    const chunk = Buffer.alloc(MiB, 'A'); // 1 MiB chunks, 1024 of them
    await pump(w, chunk, 1024);
    const exit = await w.finished(60_000);

    expect(exit, w.dump()).toEqual({ code: 1, signal: null });
    expect(w.stdout).toMatch(/FAILED .*native_crash/);
    expect(w.stderr).toMatch(/note: \d+ bytes of over-long lines were cut \(lines are capped at 64 KiB\)/);
    const cut = Number(/note: (\d+) bytes/.exec(w.stderr)![1]);
    expect(cut).toBe(1024 * MiB + 'Fatal Python error: Segmentation fault '.length - 64 * 1024);
    expect(w.stderr).not.toMatch(STACK_TRACE);
    expect(w.peakRssKb).toBeGreaterThan(0);
    expect(w.peakRssKb, `peak RSS ${Math.round(w.peakRssKb / 1024)} MB`).toBeLessThan(RSS_BOUND_KB);
  }, 70_000);

  // The 10 million lines: ~18 s alone on this 2-core machine (~540k lines/s, every line
  // classified), up to twice that beside other suites. SPINUP_HOSTILE_LINES scales it down.
  const LINES = Number(process.env.SPINUP_HOSTILE_LINES ?? 10_000_000);

  it(`${LINES.toLocaleString('en')} lines of one repeated heartbeat: every line read, memory bounded`, async () => {
    const w = spawnCli(['watch', '--no-history', '-'], { cwd: dir, env }).watchMemory(100);
    const BLOCK = 10_000;
    w.child.stdin!.write("[2025-03-08 12:00:00] server_args=ServerArgs(model_path='x')\n");
    const block = Buffer.from('[2025-03-08 12:00:01] Please wait for sglang server to become ready\n'.repeat(BLOCK));
    const started = Date.now();
    await pump(w, block, Math.ceil(LINES / BLOCK));
    const exit = await w.finished(150_000);
    const seconds = (Date.now() - started) / 1000;

    // The input ended with the server still waiting: no verdict, and the last line is the last one sent.
    expect(exit, w.dump()).toEqual({ code: 3, signal: null });
    expect(w.stdout).toContain('INCOMPLETE');
    expect(w.stdout).toContain(`line ${Math.ceil(LINES / BLOCK) * BLOCK + 1}: [2025-03-08 12:00:01] Please wait`);
    expect(w.peakRssKb, `peak RSS ${Math.round(w.peakRssKb / 1024)} MB`).toBeLessThan(RSS_BOUND_KB);
    expect(seconds).toBeGreaterThan(0);
  }, 160_000);
});
