/**
 * The progress and time left every fixture shows, line by line, pinned (issue 26): telling ranks'
 * bars apart and reading their frames without the rules must not change what a start that
 * draws one bar at a time shows. fixture-etas.golden.json was written by the code before that
 * change (`UPDATE_ETA_GOLDEN=1 npx vitest run test/core/fixture-etas.test.ts`); a change that
 * means to move an ETA rewrites it and says why in its commit.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatProgress, ProgressTracker } from '../../src/core/eta.js';
import { Session } from '../../src/core/session.js';
import { logLines } from '../../src/replay/run-case.js';
import { shippedPack } from '../helpers/classify.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GOLDEN = fileURLToPath(new URL('./fixture-etas.golden.json', import.meta.url));

/** `line stage: 4/14 shards, 1.8/s, ~5s left` for each line of the fixture that gave an estimate. */
function etas(family: 'sglang' | 'vllm', name: string): string[] {
  const session = new Session({ packs: [shippedPack(family)], family });
  const tracker = new ProgressTracker();
  const shown: string[] = [];
  logLines(readFileSync(`${ROOT}fixtures/${family}/${name}`, 'utf8')).forEach((line, index) => {
    for (const event of session.push(line)) {
      const estimate = tracker.observe(event);
      if (estimate) shown.push(`${index + 1} ${estimate.stage}: ${formatProgress(estimate)}`);
    }
  });
  return shown;
}

const fixtures = (['sglang', 'vllm'] as const).flatMap((family) =>
  readdirSync(`${ROOT}fixtures/${family}`)
    .filter((name) => name.endsWith('.log'))
    .sort()
    .map((name) => ({ family, name })),
);

describe('ETAs on the fixtures', () => {
  it('are what they were before ranks were told apart, on every fixture', () => {
    const now = Object.fromEntries(fixtures.map(({ family, name }) => [`${family}/${name}`, etas(family, name)]).filter(([, shown]) => shown.length > 0));
    if (process.env.UPDATE_ETA_GOLDEN === '1') writeFileSync(GOLDEN, `${JSON.stringify(now, null, 1)}\n`);
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string[]>;
    // Something to compare: the corpus has bars.
    expect(Object.keys(golden).length).toBeGreaterThan(20);
    expect(now).toEqual(golden);
  });
});
