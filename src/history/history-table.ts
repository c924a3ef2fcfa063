/** `spinup history` as text and JSON: past starts, and per-stage statistics per model and settings. */
import { formatDuration } from '../core/duration.js';
import { describeSettings } from '../core/start-facts.js';
import { STAGES, type Stage } from '../core/vocabulary.js';
import { stats, type StageExpectation } from './learn-budgets.js';
import { factsOf, setupKey, type StartRecord } from './start-record.js';

export interface StartGroup {
  host: string;
  family: string;
  model: string;
  settings: string;
  starts: number;
  ready: number;
  /** Per stage, over the ready starts (the stages of a start that did not end are not all done). */
  stages: Partial<Record<Stage, StageExpectation>>;
}

export function groupStarts(records: readonly StartRecord[]): StartGroup[] {
  const groups = new Map<string, { group: StartGroup; ready: StartRecord[] }>();
  for (const record of records) {
    const key = `${record.host}\u0000${setupKey(record.family, factsOf(record)) ?? `${record.family}|?`}`;
    let entry = groups.get(key);
    if (!entry) {
      const group: StartGroup = { host: record.host, family: record.family, model: record.model ?? '?', settings: settingsOf(record), starts: 0, ready: 0, stages: {} };
      entry = { group, ready: [] };
      groups.set(key, entry);
    }
    entry.group.starts++;
    if (record.verdict === 'ready') entry.ready.push(record);
  }
  return [...groups.values()].map(({ group, ready }) => {
    group.ready = ready.length;
    for (const stage of STAGES) {
      const times = ready.map((r) => r.stages_ms[stage]).filter((ms): ms is number => ms !== undefined);
      if (times.length > 0) group.stages[stage] = stats('setup', times);
    }
    return group;
  });
}

/** The stage a start spent longest in: `cuda_graph 6m31s`. */
export function slowestStage(record: StartRecord): { stage: Stage; ms: number } | undefined {
  let slowest: { stage: Stage; ms: number } | undefined;
  for (const [stage, ms] of Object.entries(record.stages_ms) as [Stage, number][]) {
    if (!slowest || ms > slowest.ms) slowest = { stage, ms };
  }
  return slowest;
}

export function formatStarts(records: readonly StartRecord[], localTime: (iso: string) => string): string {
  const header = ['when', 'family', 'model', 'settings', 'total', 'slowest stage', 'verdict', 'cause'];
  const rows = records.map((r) => {
    const slowest = slowestStage(r);
    return [
      localTime(r.when),
      r.family,
      shortModel(r),
      clipEnd(settingsOf(r), 32),
      duration(r.total_ms),
      slowest && slowest.ms > 0 ? `${slowest.stage} ${duration(slowest.ms)}` : '-',
      r.verdict === 'ready' || r.verdict === 'incomplete' ? r.verdict : `${r.verdict} ${r.stage}`,
      r.cause ?? '',
    ];
  });
  return table([header, ...rows]);
}

export function formatGroups(groups: readonly StartGroup[], showHost: boolean): string {
  const blocks: string[] = [];
  for (const g of groups) {
    if (g.ready === 0) continue;
    const title = `${g.family} ${g.model} ${g.settings}${showHost ? ` on ${g.host}` : ''}: ${g.ready} ready of ${g.starts} start${g.starts === 1 ? '' : 's'}`;
    const rows = (Object.entries(g.stages) as [Stage, StageExpectation][]).map(([stage, s]) => [
      `  ${stage}`,
      String(s.starts),
      duration(s.minMs),
      duration(s.medianMs),
      duration(s.maxMs),
    ]);
    blocks.push(`${title}\n${table([['  stage', 'count', 'min', 'median', 'max'], ...rows], [false, true, true, true, true])}`);
  }
  return blocks.join('\n');
}

/** `tp4 fp8`; `-` when the log said nothing (a stand-in name is no evidence of settings). */
function settingsOf(record: StartRecord): string {
  const facts = factsOf(record);
  if (record.model_from === 'log-name') delete facts.model;
  return describeSettings(facts);
}

/** A model path is long; its tail names it. Stand-ins (log names) are bracketed. */
export function shortModel(record: StartRecord, max = 40): string {
  const model = record.model ?? '?';
  const shown = model.length > max ? `…${model.slice(model.length - max + 1)}` : model;
  return record.model_from === 'log-name' ? `[${shown}]` : shown;
}

/** Log times have whole seconds mostly: no time at all reads `0s`, not `0ms`. */
function duration(ms: number): string {
  return ms === 0 ? '0s' : formatDuration(ms);
}

function clipEnd(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function table(rows: string[][], right: boolean[] = []): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows
    .map((row) => row.map((cell, col) => (right[col] ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!))).join('  ').trimEnd())
    .join('\n')
    .concat('\n');
}
