/** QuietAnswers: core's quietText answers, remembered by text only while the pack and the scope stay the same. */
import { describe, expect, it } from 'vitest';
import type { CompiledPack } from '../../../src/core/pack-types.js';
import type { QuietScope } from '../../../src/core/prefilter.js';
import type { Skippable } from '../../../src/core/skippable.js';
import { QuietAnswers } from '../../../src/io/fast-path/quiet-answers.js';
import { analysedPack } from '../../helpers/analysed-pack.js';

const sglang = analysedPack('sglang');
const vllm = analysedPack('vllm');

/** A core answer that says quiet for texts in `quiet`, and records what it was asked. */
function core(pack: CompiledPack, scope: QuietScope, quiet: string[], asked: string[]): Skippable {
  return {
    pack,
    scope,
    verdict: scope === 'beforeVerdict' ? undefined : scope === 'afterReady' ? 'ready' : 'other',
    clock: { run: {}, epoch: 0, timedPrefix: undefined },
    lastLineNo: undefined,
    repeatsLastLine: false,
    quietText: (text) => (asked.push(text), quiet.includes(text)),
  };
}

describe('QuietAnswers', () => {
  it('asks core once per text while the pack and the scope stay the same', () => {
    const answers = new QuietAnswers();
    const asked: string[] = [];
    const now = core(sglang, 'afterReady', ['nvls'], asked);
    for (let round = 0; round < 3; round++) {
      expect(answers.quiet(now, 'nvls')).toBe(true);
      expect(answers.quiet(now, 'oom')).toBe(false);
    }
    expect(asked).toEqual(['nvls', 'oom']);
  });

  it('asks again once the scope or the pack changed (a fatal line is quiet after a failure, not after ready)', () => {
    const answers = new QuietAnswers();
    const asked: string[] = [];
    expect(answers.quiet(core(sglang, 'always', ['oom'], asked), 'oom')).toBe(true);
    expect(answers.quiet(core(sglang, 'afterReady', [], asked), 'oom')).toBe(false);
    expect(answers.quiet(core(vllm, 'afterReady', ['oom'], asked), 'oom')).toBe(true);
    expect(asked).toEqual(['oom', 'oom', 'oom']);
  });

  it('keeps a bounded number of texts, and still answers right past the bound', () => {
    const answers = new QuietAnswers();
    const asked: string[] = [];
    const texts = Array.from({ length: 1000 }, (_, i) => `line ${i}`);
    const now = core(sglang, 'afterReady', texts.filter((_, i) => i % 3 === 0), asked);
    for (let round = 0; round < 2; round++) for (const [i, text] of texts.entries()) expect(answers.quiet(now, text)).toBe(i % 3 === 0);
  });
});
