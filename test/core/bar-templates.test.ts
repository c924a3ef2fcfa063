/**
 * A known bar's frame that moved only its elapsed time is matched from the bar's template
 * (bar-templates.ts), not by the rules: the match must be the very one the rules give. Checked
 * frame by frame on every fixture (with its family's shipped pack) and on a generated start of
 * 8 ranks' bars whose elapsed seconds move hundreds of times, as the classifier reads them; and
 * on the frames a template must refuse.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Classifier } from '../../src/core/classifier.js';
import { guardFrames } from '../../src/core/line-guard.js';
import { matchFrame } from '../../src/core/match-frame.js';
import type { CompiledPack } from '../../src/core/pack-types.js';
import { parseFrame } from '../../src/core/parse-line.js';
import { shippedPack } from '../helpers/classify.js';
import { repoRoot } from '../helpers/run-main.js';
// @ts-expect-error: the bench's generator is plain JavaScript without types.
import { generateRankBars } from '../bench/generate-rank-bars.mjs';

/** Reads `lines` as the classifier does, checking each frame's match against the rules'; returns the frames whose elapsed time alone moved. */
function checkFrames(pack: CompiledPack, lines: readonly string[]): number {
  const classifier = new Classifier(pack);
  // Independent of the code under test: the text before a frame's `[`, and the time after it, per frame seen.
  const timeOf = new Map<string, string>();
  let timeOnly = 0;
  lines.forEach((line, index) => {
    for (const frame of guardFrames(line)) {
      const shown = /^(.*\[)(\d+(?::\d+)+)</.exec(frame);
      if (shown) {
        const before = timeOf.get(shown[1]!);
        if (before !== undefined && before !== shown[2]) timeOnly++;
        timeOf.set(shown[1]!, shown[2]!);
      }
      const rules = matchFrame(pack, parseFrame(frame, pack.prefixes));
      expect(classifier.read(frame), `line ${index + 1}: ${frame}`).toEqual(rules);
    }
    classifier.feed(line, index * 1000, index + 1);
  });
  return timeOnly;
}

describe('a bar frame matched from its template', () => {
  it('matches as the rules do, on every frame of every fixture', () => {
    const root = join(repoRoot, 'fixtures');
    let timeOnly = 0;
    for (const family of ['sglang', 'vllm'] as const) {
      const pack = shippedPack(family);
      for (const file of readdirSync(join(root, family)).filter((f) => f.endsWith('.log'))) {
        timeOnly += checkFrames(pack, readFileSync(join(root, family, file), 'utf8').split('\n'));
      }
    }
    // The fixtures' bars move their time between frames read: the templates were asked.
    expect(timeOnly).toBeGreaterThan(20);
  }, 120_000);

  it("matches as the rules do on 8 ranks' bars, hundreds of frames moving only their time", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'spinup-templates-')), 'rank-bars.log');
    generateRankBars(file, { size: 10_000_000, seed: 7 });
    const timeOnly = checkFrames(shippedPack('sglang'), readFileSync(file, 'utf8').split('\n'));
    expect(timeOnly).toBeGreaterThan(200);
  }, 120_000);

  it('is not taken for a frame that moved more than its time, or whose time has another shape', () => {
    const pack = shippedPack('sglang');
    const bar = (done: number, time: string, rest = '00:25,  1.75it/s'): string => `(Worker_TP3 pid=41203) Loading safetensors checkpoint shards:  12% Completed | ${done}/49 [${time}<${rest}]`;
    checkFrames(pack, [bar(6, '00:03'), bar(6, '00:04'), bar(7, '00:04'), bar(7, '1:00:04'), bar(7, '1:00:05'), bar(7, '0:5'), bar(7, '00:08'), bar(7, '000:9'), bar(7, '00:06', '?, ?it/s'), bar(7, '00:07', '00:25, 1.75 shards/s')]);
  });
});
