/**
 * A family pack's `shared` (its includes alone, for a log whose family is not found) is compiled
 * when first read: the same rules as compiling the includes on their own, one pack however often
 * it is read, and nothing of it compiled for a start that never reads it.
 */
import { describe, expect, it } from 'vitest';
import { compilePack } from '../../src/core/compile-pack.js';
import type { PackSource } from '../../src/core/pack-types.js';
import { readPackWithIncludes, resolvePackRef } from '../../src/pack/load-pack.js';

const sources = (family: string): PackSource[] => readPackWithIncludes(resolvePackRef(family)).files.map((f) => f.data);

describe('compilePack: the shared rules of a family', () => {
  it.for(['sglang', 'vllm'])('%s: the includes alone, as compiling them on their own gives, read once or twice', (family) => {
    const [own, ...included] = sources(family);
    const pack = compilePack([own!, ...included]);
    const alone = compilePack([{ pack: included.map((s) => s.pack).join('+'), description: `the shared rules of ${own!.pack}` }, ...included]);
    const shared = pack.shared!;
    expect(shared).toBe(pack.shared);
    expect(shared).toMatchObject({ name: alone.name, isShared: true });
    expect(shared.allRules.map((rule) => `${rule.pack}/${rule.id}`)).toEqual(alone.allRules.map((rule) => `${rule.pack}/${rule.id}`));
    expect(shared.prefilter.literalCount).toBe(alone.prefilter.literalCount);
    expect(Object.keys(pack)).toContain('shared');
  });

  it('a pack without includes has none', () => {
    const [own] = sources('sglang');
    expect(compilePack([{ ...own!, include: [] }]).shared).toBeUndefined();
  });
});
