/** What each traced frame meant, rule by rule: the annotations of `explain` and the hits of `--coverage`. */
import type { ClassifierEvent } from '../core/events.js';
import type { CompiledInference, CompiledPack, InferenceTable } from '../core/pack-types.js';
import { GENERIC_EXCEPTION_RULE } from '../core/root-cause.js';
import type { FrameHit } from '../core/rule-hit.js';
import { failureDetail, LINE_KINDS } from '../core/rule-kinds.js';
import type { FrameTrace, LineTrace } from './explain-driver.js';

export type { FrameHit, HitKind } from '../core/rule-hit.js';

const READS: Record<InferenceTable, string> = { words: 'its words', classes: 'its class', packages: 'the package it was raised in', fallback_words: 'its words (after class and package)' };

/** The frame's hits: each line kind's (as the registry shows them), then the root-cause candidates it added. */
export function frameHits(frame: FrameTrace, pack: CompiledPack, lineEvents: readonly ClassifierEvent[] = []): FrameHit[] {
  const { match } = frame;
  const hits: FrameHit[] = [];
  const context = { pack, events: lineEvents };
  for (const kind of LINE_KINDS) kind.explain(match, context, hits);
  // A candidate a rule hit of this frame already shows is not shown again.
  const named = new Set(hits.map((hit) => hit.rule));
  for (const candidate of frame.candidates) {
    if (named.has(candidate.ruleId)) continue;
    const byFrame = pack.frameFailures.find((rule) => rule.id === candidate.ruleId);
    const inferred = inferenceEntry(pack, candidate.ruleId);
    if (candidate.peerDeath) {
      hits.push({ kind: 'symptom', rule: candidate.peerDeath, detail: 'only reports another process dying: ranked below wrappers that name a cause', groups: {} });
    } else if (inferred) {
      hits.push({ kind: 'inference', rule: inferred.id, detail: `${inferred.cause}, inferred from ${READS[inferred.table]}`, groups: {} });
    } else if (byFrame) {
      hits.push({ kind: byFrame.kind, rule: byFrame.id, detail: `${failureDetail(byFrame)}, by the frame that raised it`, groups: {} });
    } else if (frame.role === 'exception') {
      const detail = candidate.ruleId === GENERIC_EXCEPTION_RULE ? 'no rule names it' : `named by ${candidate.ruleId}, the line that opened the traceback`;
      hits.push({ kind: 'exception', rule: GENERIC_EXCEPTION_RULE, detail, groups: {} });
    }
    named.add(candidate.ruleId);
  }
  if (frame.role !== 'code') {
    const remedy = pack.inference.remedies.find((rule) => rule.regex.test(match.frame.body));
    if (remedy) hits.push({ kind: 'remedy', rule: remedy.id, detail: 'generic advice, not the exception\'s words', groups: {} });
  }
  return hits;
}

function inferenceEntry(pack: CompiledPack, id: string): CompiledInference | undefined {
  const { words, classes, packages, fallback_words } = pack.inference;
  return [...words, ...classes, ...packages, ...fallback_words].find((e) => e.id === id);
}

export interface LineHits {
  hits: FrameHit[];
  /** False when every frame was a traceback source line (rules do not read those). */
  read: boolean;
  afterVerdict: boolean;
}

/** A physical line's hits over all its `\r` frames; a rule that matched several frames counts once (the last). */
export function lineHits(line: LineTrace, pack: CompiledPack): LineHits {
  const byRule = new Map<string, FrameHit>();
  for (const frame of line.frames) {
    for (const hit of frameHits(frame, pack, line.events)) {
      const key = `${hit.kind}|${hit.rule}`;
      byRule.delete(key);
      byRule.set(key, hit);
    }
  }
  return {
    hits: [...byRule.values()],
    read: line.frames.some((frame) => frame.role !== 'code'),
    afterVerdict: line.frames.length > 0 && line.frames.every((frame) => frame.afterVerdict),
  };
}
