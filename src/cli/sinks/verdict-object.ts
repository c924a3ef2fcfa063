/**
 * A verdict as the one JSON object `--json` prints for it: the `verdict` event of `watch` (with
 * what the history adds), `run`'s (with its process and probe), a group's `group_verdict`, or the
 * `verdict` of a node that failed after its group was READY. The JSON output and the webhook
 * (`--notify`) both send this, so a script reads the same object from either.
 */
import type { Session } from '../../core/session.js';
import type { ProbeResult } from '../../io/health-probe.js';
import { systemClock } from '../../io/wall-clock.js';
import { insightJson } from '../../history/status-insight.js';
import { groupVerdictJson } from '../format/group-json.js';
import { eventJson, verdictJson } from '../format/verdict-json.js';
import type { VerdictReport } from './sink.js';

export function verdictObject(report: VerdictReport, session: Session): Record<string, unknown> {
  const { verdict } = report;
  if (report.node !== undefined) return nodeFailureObject(report, session.pack?.name);
  if (report.group) return groupVerdictJson(report.group);
  if (report.run) return runVerdictObject(report.run, session, verdict);
  const event = { type: 'verdict' as const, verdict };
  return { ...eventJson(event), ...insightJson(session, event) };
}

/** A node's failure after its group was READY: the node's verdict, decided by the group. */
export function nodeFailureObject(report: VerdictReport, family: string | undefined): Record<string, unknown> {
  return { type: 'verdict', ...verdictJson(report.verdict, { family, decided_by: 'group', node: report.node }) };
}

function runVerdictObject({ decision, facts }: NonNullable<VerdictReport['run']>, session: Session, verdict: VerdictReport['verdict']): Record<string, unknown> {
  const json = verdictJson(verdict, {
    family: session.pack?.isShared ? undefined : session.pack?.name,
    decided_by: decision.by,
    process: {
      pid: facts.pid,
      code: decision.exit?.code,
      signal: decision.exit?.signal,
      started_wall_ms: facts.startedAt,
      exited_wall_ms: decision.exit?.at,
    },
    health: facts.healthUrl ? { url: facts.healthUrl, ...probeJson(decision.health) } : undefined,
    oom_evidence: decision.oomEvidence?.length ? decision.oomEvidence : undefined,
    log: facts.log,
    wall_ms: systemClock.now(),
  });
  return { type: 'verdict', ...json };
}

function probeJson(result: ProbeResult | undefined): Record<string, unknown> {
  return result ? { ok: result.ok, status: result.status, error: result.error, wall_ms: result.at } : { ok: false };
}
