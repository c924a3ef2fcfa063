/**
 * `spinup watch -` end to end: the built CLI reading a real pipe, fed by a stand-in server that
 * prints a captured log with its own rhythm (compressed), by `head`, or by the test itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoverFixtures } from '../../src/replay/discover.js';
import { runCase } from '../../src/replay/run-case.js';
import { shippedPack } from '../helpers/classify.js';
import { repoRoot } from '../helpers/run-main.js';
import { assertBuilt, fixtureLines, killAll, slice, spawnPipeline, spawnWatch, type WatchChild } from '../helpers/watch-child.js';

let dir: string;

beforeAll(() => assertBuilt());

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spinup-watch-pipe-'));
});

afterEach(async () => {
  await killAll();
  await rm(dir, { recursive: true, force: true });
});

const options = (): { cwd: string; stateDir: string } => ({ cwd: repoRoot, stateDir: join(dir, 'state') });
const EXIT_OF: Record<string, number> = { ready: 0, failed: 1, stalled: 2, incomplete: 3 };

/** What the replay engine says of the same log when the input simply ends (no `then_idle`). */
function replayed(log: string): { verdict: string; stage: string; cause?: string; rule?: string } {
  const { pairs } = discoverFixtures([join(repoRoot, 'fixtures', log)]);
  const { verdict } = runCase(pairs[0]!, { packs: [shippedPack('sglang'), shippedPack('vllm')], ignoreIdle: true });
  return { verdict: verdict.verdict, stage: verdict.stage, cause: verdict.cause, rule: verdict.rule };
}

describe('spinup watch -: a server printing its log into a pipe', () => {
  it.for([
    { log: 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log', family: 'sglang' },
    { log: 'sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log', family: 'sglang' },
    { log: 'vllm/51-v072-v0-tp2-turing-xformers-ready.log', family: 'vllm' },
    { log: 'vllm/31-v0-tp4-nccl-watchdog-timeout-seqnum1-failed.log', family: 'vllm' },
  ])('$log, paced 2000x faster, gives the replay verdict', async ({ log, family }) => {
    const expected = replayed(log);
    const w = spawnPipeline(
      `node test/fixture-servers/replay-log.mjs --log fixtures/${log} --speed 2000 2>&1 | node "$BIN" watch --no-history --json --pack ${family} -`,
      options(),
    );
    expect(await w.finished()).toEqual({ code: EXIT_OF[expected.verdict], signal: null });
    const events = w.events;
    for (const event of events) expect(typeof event.type).toBe('string');
    const verdicts = events.filter((e) => e.type === 'verdict');
    expect(verdicts).toHaveLength(1);
    const { verdict, stage, cause, rule } = verdicts[0]!;
    expect({ verdict, stage, cause, rule }).toEqual(expected);
  });

  it('prints one line per stage on stderr and the verdict block on stdout (no TTY)', async () => {
    const w = spawnPipeline(
      'node test/fixture-servers/replay-log.mjs --log fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log --speed 2000 2>&1 | node "$BIN" watch --no-history -',
      options(),
    );
    expect(await w.finished()).toEqual({ code: 1, signal: null });
    expect(w.stderr.split('\n')).toEqual([
      'spinup: family sglang (detected)',
      expect.stringMatching(/^\[ +\d+ms\] stage launch {2}line 15$/),
      expect.stringMatching(/^\[ +\d+s\] stage distributed_init {2}line \d+$/),
      expect.stringMatching(/^\[ +\d+s\] stage load_weights {2}line 58$/),
      '',
    ]);
    expect(w.stdout).toMatch(/^FAILED sglang {2}gpu_oom: /);
    expect(w.stdout).toMatch(/^ {2}root cause line 106: torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate 114\.00 MiB/m);
    expect(w.stdout).toMatch(/^ {2}hint {7}\S/m);
  });
});

describe('spinup watch -: the pipe closes with no verdict', () => {
  const READY = fixtureLines('sglang/09-tp4-l4-qwq32b-ready-health-polls.log');

  it('exits 3 and names the last line seen', async () => {
    const w = spawnPipeline('head -n 30 fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log | node "$BIN" watch --no-history -', options());
    expect(await w.finished()).toEqual({ code: 3, signal: null });
    expect(w.stdout).toBe(`INCOMPLETE sglang  the input ended before any verdict (last stage: load_weights)\n  last line  line 30: ${READY[29]}\n`);
  });

  it('--json: the verdict event carries the last line, a partial one included', async () => {
    const bytes = slice(READY, 1, 29).length + 20;
    const w = spawnPipeline(`head -c ${bytes} fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log | node "$BIN" watch --no-history --json -`, options());
    expect(await w.finished()).toEqual({ code: 3, signal: null });
    const verdict = w.events.find((e) => e.type === 'verdict');
    expect(verdict).toMatchObject({ verdict: 'incomplete', stage: 'load_weights', last_line: { line: 30, text: READY[29]!.slice(0, 20) } });
  });
});

describe('spinup watch -: a pipe that stays open', () => {
  const READY = fixtureLines('sglang/09-tp4-l4-qwq32b-ready-health-polls.log');

  /** watch reading a pipe from the test, which writes lines `from`..30 and keeps it open. */
  function openPipe(from: number, ...args: string[]): WatchChild {
    const w = spawnWatch([...args, '-'], options());
    w.child.stdin!.write(slice(READY, from, 30));
    return w;
  }

  it('--stall 1s: silence on an open pipe is STALLED, exit 2', async () => {
    // Lines 24-30 share one second: a longer gap inside what arrives at once would itself be a
    // stall on the log's own clock, as in replay.
    const w = openPipe(24, '--stall', '1s', '--pack', 'sglang');
    expect(await w.finished()).toEqual({ code: 2, signal: null });
    expect(w.stdout).toMatch(/^STALLED sglang {2}in stage load_weights\n {2}silent for 1s \(budget 1s: --stall\)/);
  });

  it('--timeout 1s: exit 2, "timed out"', async () => {
    const w = openPipe(2, '--timeout', '1s');
    expect(await w.finished()).toEqual({ code: 2, signal: null });
    expect(w.stderr).toMatch(/^timed out after 1s with no verdict: load_weights /m);
  });

  it('SIGINT: exit 130 and where things stood', async () => {
    const w = openPipe(2);
    await w.untilStderr('stage load_weights');
    w.child.kill('SIGINT');
    expect(await w.finished()).toEqual({ code: 130, signal: null });
    expect(w.stderr).toMatch(/^interrupted: load_weights \d+(ms|s) · total \d+s\n {2}last line 29: /m);
  });

  it('a verdict ends the watch although the writer keeps the pipe open', async () => {
    const w = openPipe(2, '--json');
    w.child.stdin!.write(slice(READY, 31));
    expect(await w.finished()).toEqual({ code: 0, signal: null });
    expect(w.events.filter((e) => e.type === 'verdict')).toMatchObject([{ verdict: 'ready', decided_by: { line: 81 } }]);
  });
});
