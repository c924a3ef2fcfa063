/** What each traced frame meant, rule by rule: the annotations of `explain` and the hits of `--coverage`. */
import type { ClassifierEvent } from '../core/events.js';
import type { Groups } from '../core/match-frame.js';
import type { CompiledInference, CompiledPack, InferenceTable } from '../core/pack-types.js';
import { GENERIC_EXCEPTION_RULE } from '../core/root-cause.js';
import type { FrameTrace, LineTrace } from './explain-driver.js';

export type HitKind = 'stage' | 'progress' | 'ready' | 'heartbeat' | 'benign' | 'failure' | 'exception' | 'inference' | 'remedy' | 'symptom';

const READS: Record<InferenceTable, string> = { words: 'its words', classes: 'its class', packages: 'the package it was raised in', fallback_words: 'its words (after class and package)' };

export interface FrameHit {
  kind: HitKind;
  rule: string;
  /** For people: the stage, the cause, the bar position. */
  detail: string;
  groups: Groups;
}

export function frameHits(frame: FrameTrace, pack: CompiledPack, lineEvents: readonly ClassifierEvent[] = []): FrameHit[] {
  const { match } = frame;
  const hits: FrameHit[] = [];
  if (match.marker) {
    const { rule, groups } = match.marker;
    const entered = lineEvents.some((e) => e.type === 'stage' && e.rule === rule.id);
    hits.push({ kind: 'stage', rule: rule.id, detail: entered ? rule.stage : `${rule.stage} (no change)`, groups });
  }
  if (match.progress) {
    const { rule, groups, current, total } = match.progress;
    hits.push({ kind: 'progress', rule: rule.id, detail: `${current}${total === undefined ? '' : `/${total}`} ${rule.unit}`, groups: withoutBarFields(groups) });
  }
  if (match.ready) hits.push({ kind: 'ready', rule: match.ready.rule.id, detail: match.ready.rule.holdMs > 0 ? 'ready (held for a retraction)' : 'ready', groups: match.ready.groups });
  if (match.confirmsReady) {
    const rule = pack.ready.find((r) => r.confirm.some((regex) => regex.test(match.frame.body)));
    if (rule) hits.push({ kind: 'ready', rule: rule.id, detail: 'confirms a held ready', groups: {} });
  }
  if (match.heartbeat) hits.push({ kind: 'heartbeat', rule: match.heartbeat.rule.id, detail: 'no progress', groups: match.heartbeat.groups });
  if (match.benign) {
    const shadowed = pack.failures.filter((rule) => rule.regex.test(match.frame.body)).map((rule) => rule.id);
    const detail = shadowed.length > 0 ? `sets aside ${shadowed.join(', ')}` : 'harmless';
    hits.push({ kind: 'benign', rule: match.benign.rule.id, detail, groups: match.benign.groups });
  }
  for (const { rule, groups } of match.failures) {
    hits.push({ kind: 'failure', rule: rule.id, detail: failureDetail(rule.cause, rule.role, rule.fatal), groups });
  }
  const named = new Set(match.failures.map((hit) => hit.rule.id));
  for (const candidate of frame.candidates) {
    if (named.has(candidate.ruleId)) continue;
    const byFrame = pack.frameFailures.find((rule) => rule.id === candidate.ruleId);
    const inferred = inferenceEntry(pack, candidate.ruleId);
    if (candidate.peerDeath) {
      hits.push({ kind: 'symptom', rule: candidate.peerDeath, detail: 'only reports another process dying: ranked below wrappers that name a cause', groups: {} });
    } else if (inferred) {
      hits.push({ kind: 'inference', rule: inferred.id, detail: `${inferred.cause}, inferred from ${READS[inferred.table]}`, groups: {} });
    } else if (byFrame) {
      hits.push({ kind: 'failure', rule: byFrame.id, detail: `${failureDetail(byFrame.cause, byFrame.role, byFrame.fatal)}, by the frame that raised it`, groups: {} });
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

function failureDetail(cause: string, role: string, fatal: boolean): string {
  const parts = [cause];
  if (role === 'symptom') parts.push('symptom');
  if (!fatal) parts.push('not fatal');
  return parts.join(', ');
}

// The bar's own numbers are in the detail already.
function withoutBarFields(groups: Groups): Groups {
  const { current: _current, total: _total, percent: _percent, elapsed: _elapsed, ...rest } = groups;
  return rest;
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
