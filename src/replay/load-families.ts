/** The packs replay and watch choose from: the shipped families, or the packs a user names. */
import type { CompiledPack } from '../core/pack-types.js';
import { FAMILIES, loadPack, type LoadOptions } from '../pack/load-pack.js';

export function loadPacks(refs: readonly string[] = FAMILIES, options: LoadOptions = {}): CompiledPack[] {
  return refs.map((ref) => loadPack(ref, options));
}
