/**
 * A start from the history as a lane. A record keeps how long each stage took, not when it
 * began nor which lines marked it, so the bars are laid end to end in startup order (a stage
 * entered twice shows once, with its time added up) and the lane says so.
 */
import type { StartRecord } from '../history/start-record.js';
import { STAGES } from '../core/vocabulary.js';
import { byteUnit, inUnit } from '../core/load-progress.js';
import type { Lane, ProgressSample, StageBar } from './report-model.js';

export function laneFromRecord(record: StartRecord): Lane {
  const stages: StageBar[] = [];
  let at = 0;
  for (const stage of STAGES) {
    const ms = record.stages_ms[stage];
    if (ms === undefined || stage === 'ready') continue;
    const progress = stage === 'load_weights' && record.load ? loadProgressLine(record.load, at, at + ms) : [];
    stages.push({ stage, startMs: at, endMs: at + ms, reentered: false, rule: 'from the history record', opened: { line: 0 }, open: false, progress });
    at += ms;
  }
  const endMs = Math.max(at, record.total_ms);
  const lane: Lane = { family: record.family, stages, afterReady: [], earlierRuns: 0, endMs, fromRecord: true };
  lane.verdict = { verdict: record.verdict, stage: record.stage, atMs: record.total_ms, reason: reasonOf(record), evidence: [] };
  if (record.cause !== undefined) lane.verdict.cause = record.cause;
  if (record.verdict === 'stalled' && record.budget) {
    // A stall is called when the silence reaches the budget: at least that much before the end was quiet.
    lane.verdict.silence = { fromMs: Math.max(0, record.total_ms - record.budget.ms), toMs: record.total_ms };
    lane.verdict.budget = { ms: record.budget.ms, detail: record.budget.detail };
  }
  return lane;
}

/**
 * The bytes the server's processes read in load_weights, as a line from nothing at the bar's start to what
 * was read at its end: a record keeps the total, not the pace.
 */
function loadProgressLine(load: NonNullable<StartRecord['load']>, startMs: number, endMs: number): ProgressSample[] {
  const total = load.total_bytes ?? load.read_bytes;
  const fraction = total > 0 ? Math.min(1, load.read_bytes / total) : 1;
  const [size, name] = byteUnit(total);
  const unit = `${name} ${load.total_bytes === undefined ? 'read' : 'of the checkpoint read'} (/proc)`;
  return [
    { atMs: startMs, fraction: 0, current: 0, total: inUnit(total, size), unit },
    { atMs: endMs, fraction, current: inUnit(load.read_bytes, size), total: inUnit(total, size), unit },
  ];
}

function reasonOf(record: StartRecord): string {
  const log = record.log !== undefined ? ` of ${record.log}` : '';
  return `recorded by spinup ${record.source}${log} on ${record.host} at ${record.when}`;
}
