/** QuietAnswers: core's quietText answers, remembered by a line's bytes only while the pack and the scope stay the same. */
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

/** Asks about `text` as one line of a chunk, with other lines around it. */
function ask(answers: QuietAnswers, now: Skippable, text: string): boolean {
  const chunk = Buffer.from(`before\n${text}\nafter\n`);
  return answers.quiet(now, chunk, 7, 7 + Buffer.byteLength(text));
}

describe('QuietAnswers', () => {
  it('asks core once per line while the pack and the scope stay the same', () => {
    const answers = new QuietAnswers();
    const asked: string[] = [];
    const now = core(sglang, 'afterReady', ['nvls on dev 0'], asked);
    for (let round = 0; round < 3; round++) {
      expect(ask(answers, now, 'nvls on dev 0')).toBe(true);
      expect(ask(answers, now, 'nvls on dev 1')).toBe(false);
      expect(ask(answers, now, 'nvls on dev 0 ')).toBe(false);
      expect(ask(answers, now, 'é on dev 0')).toBe(false);
    }
    expect(asked).toEqual(['nvls on dev 0', 'nvls on dev 1', 'nvls on dev 0 ', 'é on dev 0']);
  });

  it('remembers a copy of the line: the chunk it came in may be overwritten', () => {
    const answers = new QuietAnswers();
    const asked: string[] = [];
    const now = core(sglang, 'afterReady', ['quiet line'], asked);
    const chunk = Buffer.from('quiet line\n');
    expect(answers.quiet(now, chunk, 0, 10)).toBe(true);
    chunk.write('loud! line');
    expect(answers.quiet(now, chunk, 0, 10)).toBe(false);
    expect(ask(answers, now, 'quiet line')).toBe(true);
    expect(asked).toEqual(['quiet line', 'loud! line']);
  });

  it('asks again once the scope or the pack changed (a fatal line is quiet after a failure, not after ready)', () => {
    const answers = new QuietAnswers();
    const asked: string[] = [];
    expect(ask(answers, core(sglang, 'always', ['oom'], asked), 'oom')).toBe(true);
    expect(ask(answers, core(sglang, 'afterReady', [], asked), 'oom')).toBe(false);
    expect(ask(answers, core(vllm, 'afterReady', ['oom'], asked), 'oom')).toBe(true);
    expect(asked).toEqual(['oom', 'oom', 'oom']);
  });

  it('keeps a bounded number of lines, and still answers right past the bound', () => {
    const answers = new QuietAnswers();
    const texts = Array.from({ length: 1000 }, (_, i) => `line ${i}`);
    const now = core(sglang, 'afterReady', texts.filter((_, i) => i % 3 === 0), []);
    for (let round = 0; round < 2; round++) for (const [i, text] of texts.entries()) expect(ask(answers, now, text)).toBe(i % 3 === 0);
  });
});
