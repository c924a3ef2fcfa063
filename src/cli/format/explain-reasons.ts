/** The "Why" part of `spinup explain`: the line that decided, what was set aside, the ranked candidates. */
import type pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { ClassifierEvent, Evidence, LogLine } from '../../core/events.js';
import { compareCandidates, type Candidate, type Tier } from '../../core/root-cause.js';
import type { LogTrace } from '../../replay/explain-driver.js';
import { lineHits, type FrameHit } from '../../replay/frame-hits.js';
import { clip, shownText } from './shown-text.js';

export type Colors = ReturnType<typeof pc.createColors>;

const MAX_LISTED = 10;

export const TIER_MEANING: Record<Tier, string> = {
  0: 'a fatal rule naming the cause',
  1: 'a warning rule naming a cause, from the failing process',
  2: 'an exception whose own words name its cause (catalog, inference tables), or a line the source makes fatal',
  3: 'a line the source prints before the exception it explains, from the failing process',
  4: 'an exception no rule names',
  5: 'a warning from another process than the failing one',
  6: 'a wrapper that carries a cause',
  7: 'an exception that only reports another process dying',
  8: 'a wrapper that only says the start is dead',
};

/** Candidates best first, the way the classifier chooses: not superseded, lowest tier, earliest. */
export function rankCandidates(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort(compareCandidates);
}

export function reasoning(trace: LogTrace, c: Colors): string[] {
  const { verdict } = trace;
  const out: string[] = [];
  const decided = verdict.decidedBy;
  out.push(row(c, 'decided by', decided ? lineRef(decided, c) : c.dim('time passing, not a line')));
  out.push(row(c, 'reason', shownText(verdict.reason)));
  if (verdict.verdict === 'ready' && decided) out.push(...heldReady(trace, decided, c));
  if (verdict.verdict === 'failed') out.push(...failureReasoning(trace, c));
  if (verdict.verdict === 'stalled' && verdict.lastLine) {
    out.push(row(c, 'quiet since', `${lineRef(verdict.lastLine, c)}`));
  }
  if (verdict.verdict === 'incomplete') {
    out.push(row(c, 'note', 'no ready line, no settled failure, and no silence past the stage budget before the input ended; --then-idle replays the quiet after the last line'));
  }
  const benign = benignLookalikes(trace);
  if (benign.length > 0) {
    out.push(row(c, 'benign', `${benign.length} alarming-looking line(s) set aside by benign rules:`));
    for (const item of benign.slice(0, MAX_LISTED)) out.push(`${' '.repeat(15)}${lineRef(item.line, c)} ${c.dim(`(${item.hit.rule}: ${item.hit.detail})`)}`);
    if (benign.length > MAX_LISTED) out.push(`${' '.repeat(15)}${c.dim(`... ${benign.length - MAX_LISTED} more`)}`);
  }
  for (const event of allEvents(trace)) {
    if (event.type === 'after-ready-failure') out.push(row(c, 'after ready', `${lineRef(event.line, c)} ${c.dim(`(${event.rule}: ${event.cause})`)}`));
  }
  return out;
}

function heldReady(trace: LogTrace, decided: LogLine, c: Colors): string[] {
  const line = trace.lines[decided.lineNo - 1];
  const hit = line ? lineHits(line, trace.pack).hits.find((h) => h.kind === 'ready') : undefined;
  const rule = trace.pack.ready.find((r) => r.id === hit?.rule);
  if (!rule || rule.holdMs === 0) return [];
  const how = trace.verdict.at - decided.at < rule.holdMs ? 'a later line confirmed it sooner' : 'no failure came';
  return [row(c, 'held', `${formatDuration(rule.holdMs)} for a retraction (a bind error can follow the ready line); ${how}`)];
}

function failureReasoning(trace: LogTrace, c: Colors): string[] {
  const { verdict } = trace;
  const out: string[] = [];
  verdict.evidence.forEach((e, i) => out.push(row(c, i === 0 ? (verdict.causeElsewhere ? 'wrapper' : 'root cause') : '', `${lineRef(e, c)}`)));
  if (verdict.symptoms.length > 0) {
    out.push(row(c, 'set aside', `${verdict.symptoms.length} line(s), symptoms of the root cause:`));
    for (const symptom of verdict.symptoms.slice(0, MAX_LISTED)) out.push(`${' '.repeat(15)}${symptomRef(trace, symptom, c)}`);
    if (verdict.symptoms.length > MAX_LISTED) out.push(`${' '.repeat(15)}${c.dim(`... ${verdict.symptoms.length - MAX_LISTED} more`)}`);
  }
  const ranked = rankCandidates(trace.candidates);
  out.push(row(c, 'candidates', `${ranked.length}, best first (lower tier wins, then the earlier line):`));
  ranked.slice(0, MAX_LISTED).forEach((candidate, index) => {
    const where = candidate.evidence[0] ? `line ${candidate.evidence[0].lineNo}` : '';
    const superseded = candidate.superseded ? c.dim(' (superseded by a later exception)') : '';
    out.push(`${' '.repeat(15)}${index + 1}. ${c.bold(candidate.cause)} ${candidate.ruleId} ${c.dim(where)}  tier ${candidate.tier}: ${TIER_MEANING[candidate.tier]}${superseded}`);
    out.push(`${' '.repeat(18)}${c.dim(clip(candidate.message, 160))}`);
  });
  if (ranked.length > MAX_LISTED) out.push(`${' '.repeat(15)}${c.dim(`... ${ranked.length - MAX_LISTED} more`)}`);
  return out;
}

function symptomRef(trace: LogTrace, symptom: Evidence, c: Colors): string {
  const line = trace.lines[symptom.lineNo - 1];
  const rules = line ? lineHits(line, trace.pack).hits.filter((h) => h.kind === 'failure').map((h) => h.rule) : [];
  return `${lineRef(symptom, c)}${rules.length > 0 ? c.dim(` (${rules.join(', ')})`) : ''}`;
}

function benignLookalikes(trace: LogTrace): { line: LogLine; hit: FrameHit }[] {
  const found: { line: LogLine; hit: FrameHit }[] = [];
  for (const line of trace.lines) {
    const { hits, afterVerdict } = lineHits(line, trace.pack);
    if (afterVerdict) break;
    const hit = hits.find((h) => h.kind === 'benign' && (h.detail.startsWith('sets aside') || /\b(?:error|failed|fatal)\b/i.test(line.raw)));
    const last = line.frames[line.frames.length - 1];
    if (hit && last) found.push({ line: { lineNo: line.lineNo, text: last.match.frame.text, at: last.at }, hit });
  }
  return found;
}

export function allEvents(trace: LogTrace): ClassifierEvent[] {
  return [...trace.lines.flatMap((line) => line.events), ...trace.tail];
}

export function lineRef(line: LogLine, c: Colors): string {
  return `${c.dim(`line ${line.lineNo}:`)} ${clip(line.text.trim(), 160)}`;
}

export function row(c: Colors, label: string, value: string): string {
  return `  ${c.dim(label.padEnd(12))} ${value}`;
}
