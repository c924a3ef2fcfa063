/**
 * Builds a lane from the events spinup prints with --json (the same objects the status API
 * streams on /v1/events), one event at a time: the live page feeds them as they arrive, the
 * report feeds a replay's. The live page runs these very functions in the browser (their
 * source is inlined), so they use no imports, no module constants, only each other.
 */
import type { Lane, LineRef, StageBar } from './report-model.js';

/** An event as --json writes it (snake_case); only the fields the picture reads. */
export interface WireEvent {
  type: string;
  /** The node of a group start, when the event says. */
  node?: string;
  stage?: string;
  at_ms?: number;
  line?: number;
  rule?: string;
  reentered?: boolean;
  text?: string;
  current?: number;
  total?: number;
  percent?: number;
  unit?: string;
  family?: string;
  verdict?: string;
  cause?: string;
  message?: string;
  hint?: string;
  reason?: string;
  evidence?: { line: number; text?: string }[];
  silent_ms?: number;
  budget?: { ms: number; detail?: string };
  last_line?: { line: number; text?: string };
  decided_by?: { line: number; text?: string };
}

/** The text of a line when the caller knows it (a replay does; live events carry numbers). */
export type LineTexts = (line: number) => string | undefined;

export function emptyLane(node?: string): Lane {
  const lane: Lane = { stages: [], afterReady: [], earlierRuns: 0, endMs: 0 };
  if (node !== undefined) lane.node = node;
  return lane;
}

/** Applies one event; unknown types (notices, warnings) change nothing. */
export function applyEvent(lane: Lane, event: WireEvent, texts?: LineTexts): void {
  const at = typeof event.at_ms === 'number' ? event.at_ms : lane.endMs;
  if (event.type === 'family' && event.family !== undefined) lane.family = event.family;
  if (event.type === 'restart') {
    lane.stages = [];
    lane.afterReady = [];
    delete lane.verdict;
    lane.earlierRuns++;
    lane.endMs = at;
    return;
  }
  if (event.type === 'stage') enterStage(lane, event, at, lineRef(event.line ?? 0, event.text, texts));
  if (event.type === 'progress') addProgress(lane, event, at);
  if (event.type === 'after_ready_failure') {
    const line = lineRef(event.line ?? 0, event.text, texts);
    lane.afterReady.push({ atMs: at, cause: event.cause ?? 'unknown', rule: event.rule ?? '', message: event.message ?? '', line });
  }
  if (event.type === 'verdict') setVerdict(lane, event, at, texts);
  lane.endMs = Math.max(lane.endMs, at);
  for (const bar of lane.stages) if (bar.open) bar.endMs = Math.max(bar.endMs, lane.endMs);
}

function enterStage(lane: Lane, event: WireEvent, at: number, opened: LineRef): void {
  closeLastStage(lane, at, opened);
  lane.stages.push({ stage: event.stage ?? 'none', startMs: at, endMs: at, reentered: event.reentered === true, rule: event.rule ?? '', opened, open: true, progress: [] });
}

function closeLastStage(lane: Lane, at: number, closed: LineRef | undefined): void {
  const last = lane.stages[lane.stages.length - 1];
  if (!last || !last.open) return;
  last.open = false;
  last.endMs = Math.max(last.startMs, at);
  if (closed) last.closed = closed;
}

function addProgress(lane: Lane, event: WireEvent, at: number): void {
  let bar: StageBar | undefined;
  for (const candidate of lane.stages) if (candidate.stage === event.stage) bar = candidate;
  if (!bar) return;
  const current = typeof event.current === 'number' ? event.current : 0;
  const total = typeof event.total === 'number' && event.total > 0 ? event.total : undefined;
  const fraction = total !== undefined ? current / total : typeof event.percent === 'number' ? event.percent / 100 : undefined;
  if (fraction === undefined) return;
  bar.progress.push({ atMs: at, fraction: Math.max(0, Math.min(1, fraction)), current, total: total ?? 100, unit: event.unit ?? '' });
}

function setVerdict(lane: Lane, event: WireEvent, at: number, texts?: LineTexts): void {
  const ref = (line: { line: number; text?: string } | undefined): LineRef | undefined => (line ? lineRef(line.line, line.text, texts) : undefined);
  const decidedBy = ref(event.decided_by);
  closeLastStage(lane, at, decidedBy ?? ref(event.last_line));
  const kind = event.verdict === 'ready' || event.verdict === 'failed' || event.verdict === 'stalled' ? event.verdict : 'incomplete';
  lane.verdict = { verdict: kind, stage: event.stage ?? 'none', atMs: at, reason: event.reason ?? '', evidence: (event.evidence ?? []).map((e) => lineRef(e.line, e.text, texts)) };
  const mark = lane.verdict;
  if (event.cause !== undefined) mark.cause = event.cause;
  if (event.rule !== undefined) mark.rule = event.rule;
  if (event.message !== undefined) mark.message = event.message;
  if (event.hint !== undefined) mark.hint = event.hint;
  if (decidedBy) mark.decidedBy = decidedBy;
  if (kind === 'stalled' && typeof event.silent_ms === 'number') {
    mark.silence = { fromMs: Math.max(0, at - event.silent_ms), toMs: at };
    const lastLine = ref(event.last_line);
    if (lastLine) mark.silence.lastLine = lastLine;
  }
  if (event.budget) mark.budget = { ms: event.budget.ms, detail: event.budget.detail ?? '' };
}

function lineRef(line: number, text: string | undefined, texts?: LineTexts): LineRef {
  const known = text ?? (texts ? texts(line) : undefined);
  return known === undefined ? { line } : { line, text: known };
}

/**
 * The lanes of one start from its events: one lane, or one per node when the events name
 * their node (a group start).
 */
export function lanesFromEvents(events: readonly WireEvent[], texts?: LineTexts): Lane[] {
  const lanes: Lane[] = [];
  for (const event of events) applyEvent(laneForEvent(lanes, event), event, texts);
  return lanes.length > 0 ? lanes : [emptyLane()];
}

export function laneForEvent(lanes: Lane[], event: WireEvent): Lane {
  let lane = lanes.find((l) => l.node === event.node);
  if (!lane) {
    lane = emptyLane(event.node);
    lanes.push(lane);
  }
  return lane;
}

/** Source of the functions above, for the live page's inline script. */
export const LANE_BUILDER_FUNCTIONS = [emptyLane, applyEvent, enterStage, closeLastStage, addProgress, setVerdict, lineRef, lanesFromEvents, laneForEvent];
