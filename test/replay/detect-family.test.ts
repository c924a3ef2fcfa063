/**
 * Issue 13.7: a log whose family is not named must not fall back to one family silently. Every
 * fixture (whatever folder it is in) replayed without its `family:` key gives what it gives
 * with it; where the family cannot be told, only the shared rules speak.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverFixtures } from '../../src/replay/discover.js';
import { readExpectation } from '../../src/replay/expectation.js';
import { loadPacks } from '../../src/replay/load-families.js';
import { classifyText } from '../../src/replay/run-case.js';

const root = join(import.meta.dirname, '../../fixtures');
const packs = loadPacks();
const pairs = discoverFixtures([root]).pairs.filter((pair) => !pair.log.includes(`${sep}packs${sep}`) && !pair.log.includes(`.group${sep}`));
const named = pairs.map((pair) => ({ ...pair, name: `${basename(dirname(pair.log))}/${basename(pair.log, '.log')}`, expected: readExpectation(pair.expect) }));

function replay(pair: (typeof named)[number], family: string | undefined) {
  const text = readFileSync(pair.log, 'latin1') === '' ? '' : readFileSync(pair.log, 'utf8');
  return classifyText(text, { packs, family, thenIdleMs: pair.expected.thenIdleMs });
}

describe('13.7: family detection', () => {
  it('13.7: only short fragments of a log show nothing of the server that wrote it', () => {
    // A reporter's two pasted Hugging Face lines name no server at all; a real log does.
    const blind = named.filter((pair) => replay(pair, undefined).verdict.familyUnknown === 'no-evidence');
    expect(blind.length).toBeLessThanOrEqual(Math.max(2, named.length * 0.03));
    // A fragment, or an excerpt of the layers below the server only (NCCL, torch c10d lines, glog
    // lines of the transfer engines such as Mooncake, CPython's faulthandler), behind a collector's time.
    const belowServer = /^# \[|NCCL (?:INFO|WARN)|^(?:\S+Z )?\[rank\d+\]:\[[EWIF]\d|^(?:\S+Z )?[EWIF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w.]+:\d+\]|^(?:\S+Z )?Fatal Python error: /;
    for (const pair of blind) {
      const own = readFileSync(pair.log, 'utf8').split('\n').filter((line) => line.trim() !== '' && !belowServer.test(line));
      expect(own.length, pair.name).toBeLessThan(10);
    }
  });

  it('covers the fixture folders', () => {
    expect(named.length).toBeGreaterThanOrEqual(98);
    expect(named.filter((pair) => pair.expected.family !== undefined).length).toBeGreaterThan(0);
  });

  it.for(named.filter((pair) => pair.expected.family !== undefined))('13.7: $name without its family key gives the same verdict and cause', (pair) => {
    const given = replay(pair, pair.expected.family);
    const detected = replay(pair, undefined);
    if (detected.verdict.familyUnknown === 'no-evidence') {
      // Not one line of any family (13.8): no verdict, whatever the shared rules would say.
      expect(detected.verdict).toMatchObject({ verdict: 'incomplete', stage: 'none' });
      return;
    }
    expect({ verdict: detected.verdict.verdict, cause: detected.verdict.cause }).toEqual({ verdict: given.verdict.verdict, cause: given.verdict.cause });
    // Never a family-specific cause or hint on a guess: an undecided family runs the shared rules only.
    const family = detected.events.find((event) => event.type === 'family');
    if (family?.type === 'family' && !family.certain) expect(detected.verdict.rule ?? 'common/', pair.name).toMatch(/^(?:common|core)\//);
    else expect(detected.family).toBe(pair.expected.family);
  });

  it('13.7: a tail of a log (kubectl logs --tail 200) is known without its banner; a shorter one is never taken for the other family', () => {
    const wrong: string[] = [];
    let known = 0;
    let long = 0;
    for (const pair of named.filter((p) => p.expected.family !== undefined)) {
      const lines = readFileSync(pair.log, 'utf8').split('\n');
      for (const n of [200, 60, 20]) {
        if (lines.length <= n + 1) continue;
        const { family } = classifyText(lines.slice(-n - 1).join('\n'), { packs });
        if (family !== 'unknown' && family !== pair.expected.family) wrong.push(`${pair.name} tail ${n}: ${family}`);
        if (n === 200) {
          long++;
          if (family === pair.expected.family) known++;
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(long).toBeGreaterThan(10);
    expect(known / long).toBeGreaterThanOrEqual(0.95); // today: every one
  });
});
