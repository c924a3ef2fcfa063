/** Runs a compiled pack's rules over one parsed frame. Pure: the same frame always matches the same way. */
import type { CompiledPack } from './pack-types.js';
import type { ParsedFrame } from './parse-line.js';
import type { RuleSet } from './prefilter.js';
import { emptyMatch, LINE_KINDS, type FrameMatch } from './rule-kinds.js';

export type { Groups, RuleHit } from './rule-hit.js';
export type { FrameMatch, ProgressHit } from './rule-kinds.js';

/**
 * Matches one frame. The pack's prefilter picks the rules whose required literals occur in the
 * body (usually none), so the result is the same as running every rule, at a fraction of the cost.
 */
export function matchFrame(pack: CompiledPack, frame: ParsedFrame): FrameMatch {
  const result = emptyMatch(frame);
  if (frame.body === '') return result;
  return matchRules(pack.prefilter.select(frame.body), result);
}

/** Runs every rule of the pack, unfiltered: the reference the prefilter must agree with. */
export function matchFrameUnfiltered(pack: CompiledPack, frame: ParsedFrame): FrameMatch {
  const result = emptyMatch(frame);
  if (frame.body === '') return result;
  const lists = LINE_KINDS.map((kind) => kind.rules(pack));
  return matchRules({ lists, size: lists.reduce((n, list) => n + list.length, 0) }, result);
}

/** Each line kind, in the registry's order, runs the rules of its own the prefilter picked. */
function matchRules(rules: RuleSet, result: FrameMatch): FrameMatch {
  if (rules.size === 0) return result;
  const body = result.frame.body;
  const { lists } = rules;
  for (let index = 0; index < LINE_KINDS.length; index++) {
    const list = lists[index]!;
    const kind = LINE_KINDS[index]!;
    if (list.length === 0 || !kind.match(list, body, result)) continue;
    result.hits |= kind.bit;
  }
  return result;
}
