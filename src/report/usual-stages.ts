/** What "usual" means on the report: per stage, the ready starts of the same setup on this host. */
import type { StartFacts } from '../core/start-facts.js';
import { groupStarts } from '../history/history-table.js';
import { factsOf, setupKey, type StartRecord } from '../history/start-record.js';
import type { UsualStage } from './report-model.js';

export function usualStages(params: { records: readonly StartRecord[]; host: string; family: string; facts: StartFacts }): Record<string, UsualStage> {
  const key = setupKey(params.family, params.facts);
  if (key === undefined) return {};
  const same = params.records.filter((r) => r.host === params.host && setupKey(r.family, factsOf(r)) === key);
  const group = groupStarts(same)[0];
  const usual: Record<string, UsualStage> = {};
  for (const [stage, s] of Object.entries(group?.stages ?? {})) {
    usual[stage] = { medianMs: s.medianMs, minMs: s.minMs, maxMs: s.maxMs, starts: s.starts };
  }
  return usual;
}
