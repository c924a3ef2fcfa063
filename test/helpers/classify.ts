/** Test helper: classify lines of text with the shipped packs, on the log's own time. */
import type { Verdict } from '../../src/core/events.js';
import type { CompiledPack } from '../../src/core/pack-types.js';
import type { SessionEvent } from '../../src/core/session.js';
import { loadPack } from '../../src/pack/load-pack.js';
import { classifyText } from '../../src/replay/run-case.js';

const cache = new Map<string, CompiledPack>();

export function shippedPack(name: 'sglang' | 'vllm'): CompiledPack {
  let pack = cache.get(name);
  if (!pack) {
    pack = loadPack(name);
    cache.set(name, pack);
  }
  return pack;
}

export function classify(family: 'sglang' | 'vllm' | undefined, lines: string[], thenIdle?: number): { verdict: Verdict; events: SessionEvent[]; family: string } {
  const packs = [shippedPack('sglang'), shippedPack('vllm')];
  return classifyText(lines.join('\n'), { packs, family, thenIdleMs: thenIdle });
}
