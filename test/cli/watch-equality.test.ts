/**
 * Live and replay are one engine: every fixture piped through `spinup watch -` ends with the
 * verdict, stage and cause (and rule) the replay harness gives for the same bytes.
 *
 * The comparison is with `runCase(pair, { ignoreIdle: true })`, not with the expect file: a pipe
 * that closes has no `then_idle` quiet time after its last line (a fixture that replays a hang
 * with 3h of silence is `incomplete` here, as it would be live when the pipe closes at once).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { discoverFixtures } from '../../src/replay/discover.js';
import { readExpectation } from '../../src/replay/expectation.js';
import { runCase } from '../../src/replay/run-case.js';
import { shippedPack } from '../helpers/classify.js';
import { Collect, repoRoot } from '../helpers/run-main.js';

const EXIT_OF: Record<string, number> = { ready: 0, failed: 1, stalled: 2, incomplete: 3 };
// What a pipe hands a reader at a time on Linux.
const PIPE_CHUNK = 64 * 1024;

const { pairs } = discoverFixtures([join(repoRoot, 'fixtures/sglang'), join(repoRoot, 'fixtures/vllm')]);
const cases = pairs.map((pair) => ({ name: pair.log.slice(repoRoot.length + '/fixtures/'.length), pair }));

/** `spinup watch --json --pack FAMILY -` in-process, the log's bytes arriving on a stdin pipe. */
async function watchPiped(bytes: Buffer, family: string): Promise<{ code: number; events: Record<string, unknown>[]; stderr: string }> {
  const stdin = new PassThrough();
  const stdout = new Collect();
  const stderr = new Collect();
  for (let at = 0; at < bytes.length; at += PIPE_CHUNK) stdin.write(bytes.subarray(at, at + PIPE_CHUNK));
  stdin.end();
  const code = await main({ argv: ['watch', '--no-history', '--json', '--pack', family, '-'], stdin, stdout, stderr, env: {}, cwd: repoRoot });
  const events = stdout.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, events, stderr: stderr.text };
}

describe('watch - and replay agree on every fixture', () => {
  it('finds the whole corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(98);
  });

  it.for(cases)('$name', async ({ pair }) => {
    const family = readExpectation(pair.expect).family;
    expect(family, 'every fixture names its family').toBeDefined();
    const replayed = runCase(pair, { packs: [shippedPack('sglang'), shippedPack('vllm')], ignoreIdle: true }).verdict;
    const { code, events, stderr } = await watchPiped(readFileSync(pair.log), family!);
    expect(stderr).toBe('');
    for (const event of events) expect(typeof event.type).toBe('string');
    const verdicts = events.filter((e) => e.type === 'verdict');
    expect(verdicts.length).toBeGreaterThan(0);
    // A log holding several runs gives a verdict per run; the latest run's is the answer.
    const { verdict, stage, cause, rule } = verdicts[verdicts.length - 1]!;
    expect({ verdict, stage, cause, rule }).toEqual({ verdict: replayed.verdict, stage: replayed.stage, cause: replayed.cause, rule: replayed.rule });
    expect(code).toBe(EXIT_OF[replayed.verdict]);
  });
});
