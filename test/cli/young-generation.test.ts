/**
 * The bin keeps V8's young generation small however node was started: its shebang gives
 * --max-semi-space-size=2 (4 MB of new space), and run as `node dist/cli/bin.cjs`, without it,
 * the semi-spaces are kept from growing (io/young-generation.ts) instead of reaching 16 MB each,
 * also once a replay's worker thread started (V8 then raised the process's growth factor again).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { semiSpacesUnlimited } from '../../src/io/young-generation.js';
import { repoRoot } from '../helpers/run-main.js';

const PROBE = join(repoRoot, 'test/helpers/new-space-probe.cjs');
const BIN = join(repoRoot, 'dist/cli/bin.cjs');

/** `node --require PROBE dist/cli/bin.cjs replay --jobs N fixtures`: its tally and its largest new space. */
async function replayUnflagged(jobs: number): Promise<{ tally: string; newSpaceMb: number }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--require', PROBE, BIN, 'replay', '--jobs', String(jobs), 'fixtures'], {
    cwd: repoRoot,
    env: { ...process.env, NODE_OPTIONS: '' },
    maxBuffer: 16 << 20,
  });
  const reported = /^new-space-mb (\S+)$/m.exec(stderr);
  return { tally: stdout.trim().split('\n').pop()!, newSpaceMb: Number(reported?.[1]) };
}

describe('run as node dist/cli/bin.cjs, without the shebang flags', () => {
  it.for([1, 2])('replay --jobs %i of the fixtures keeps its new space within the shebang\'s 4 MB', { timeout: 120_000 }, async (jobs) => {
    const { tally, newSpaceMb } = await replayUnflagged(jobs);
    expect(tally).toMatch(/^\d+ passed, 0 failed$/);
    expect(newSpaceMb).toBeGreaterThan(0);
    expect(newSpaceMb).toBeLessThanOrEqual(4);
  });
});

describe('semiSpacesUnlimited', () => {
  it('is true with no --max-semi-space-size on the command line or in NODE_OPTIONS', () => {
    expect(semiSpacesUnlimited([], '')).toBe(true);
    expect(semiSpacesUnlimited(['--require', 'x.cjs', '--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
  });

  it('is false with one, however written', () => {
    expect(semiSpacesUnlimited(['--max-semi-space-size=2'], '')).toBe(false);
    expect(semiSpacesUnlimited(['--max_semi_space_size=64'], '')).toBe(false);
    expect(semiSpacesUnlimited([], '--inspect --max-semi-space-size=8')).toBe(false);
  });
});
