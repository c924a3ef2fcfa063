/**
 * A replayed log as a lane: its classifier events in the --json shape (what the live page
 * receives too), with the text of every line the picture names, so a click on a bar can show
 * the lines that opened and closed it.
 */
import type { ClassifierEvent, Evidence, LogLine, Verdict } from '../core/events.js';
import type { LogTrace } from '../replay/explain-driver.js';
import { lanesFromEvents, type WireEvent } from './lane-builder.js';
import type { Lane } from './report-model.js';

/** A line shown on the page is clipped: a 50 kB JSON dump should not make the report heavy. */
const MAX_LINE_TEXT = 400;

export function laneFromTrace(trace: LogTrace, node?: string): Lane {
  const events: WireEvent[] = [{ type: 'family', family: trace.family }];
  for (const line of trace.lines) events.push(...line.events.map(wireEvent));
  events.push(...trace.tail.map(wireEvent));
  if (node !== undefined) for (const event of events) event.node = node;
  const lane = lanesFromEvents(events, lineTexts(trace))[0]!;
  // The last line read moves the lane's end when nothing was decided (an input that just ended).
  const lastAt = lastFrameTime(trace);
  if (lastAt !== undefined && !lane.verdict) lane.endMs = Math.max(lane.endMs, lastAt);
  return lane;
}

function lineTexts(trace: LogTrace): (line: number) => string | undefined {
  return (lineNo) => {
    const line = trace.lines[lineNo - 1];
    if (!line) return undefined;
    const text = line.frames[line.frames.length - 1]?.match.frame.text ?? line.raw;
    return text.length > MAX_LINE_TEXT ? `${text.slice(0, MAX_LINE_TEXT - 1)}…` : text;
  };
}

function lastFrameTime(trace: LogTrace): number | undefined {
  for (let i = trace.lines.length - 1; i >= 0; i--) {
    const frames = trace.lines[i]!.frames;
    if (frames.length > 0) return frames[frames.length - 1]!.at;
  }
  return undefined;
}

/** The --json shape of a classifier event (cli/format/verdict-json.ts writes the same fields). */
export function wireEvent(event: ClassifierEvent): WireEvent {
  switch (event.type) {
    case 'stage':
      return { type: 'stage', stage: event.stage, at_ms: event.at, line: event.line.lineNo, rule: event.rule, reentered: event.reentered };
    case 'progress':
      return { type: 'progress', stage: event.stage, at_ms: event.at, line: event.line.lineNo, ...event.progress };
    case 'warning':
      return { type: 'warning', at_ms: event.at, line: event.line.lineNo, rule: event.rule, message: event.message };
    case 'restart':
      return { type: 'restart', at_ms: event.at, line: event.line.lineNo, rule: event.rule };
    case 'after-ready-failure':
      return { type: 'after_ready_failure', at_ms: event.at, line: event.line.lineNo, rule: event.rule, cause: event.cause, message: event.message, text: event.line.text };
    case 'verdict':
      return wireVerdict(event.verdict);
  }
}

function wireVerdict(v: Verdict): WireEvent {
  const line = (l: LogLine | Evidence): { line: number; text: string } => ({ line: l.lineNo, text: l.text });
  return {
    type: 'verdict',
    verdict: v.verdict,
    stage: v.stage,
    at_ms: v.at,
    reason: v.reason,
    cause: v.cause,
    rule: v.rule,
    message: v.message,
    hint: v.hint,
    evidence: v.evidence.map(line),
    silent_ms: v.silentMs,
    budget: v.budget,
    last_line: v.lastLine ? line(v.lastLine) : undefined,
    decided_by: v.decidedBy ? line(v.decidedBy) : undefined,
  };
}
