/**
 * A start from the history as a lane. A record keeps how long each stage took, not when it
 * began nor which lines marked it, so the bars are laid end to end in startup order (a stage
 * entered twice shows once, with its time added up) and the lane says so.
 */
import type { StartRecord } from '../history/start-record.js';
import { STAGES } from '../core/vocabulary.js';
import type { Lane, StageBar } from './report-model.js';

export function laneFromRecord(record: StartRecord): Lane {
  const stages: StageBar[] = [];
  let at = 0;
  for (const stage of STAGES) {
    const ms = record.stages_ms[stage];
    if (ms === undefined || stage === 'ready') continue;
    stages.push({ stage, startMs: at, endMs: at + ms, reentered: false, rule: 'from the history record', opened: { line: 0 }, open: false, progress: [] });
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

function reasonOf(record: StartRecord): string {
  const log = record.log !== undefined ? ` of ${record.log}` : '';
  return `recorded by spinup ${record.source}${log} on ${record.host} at ${record.when}`;
}
