/** Node verdicts the group makes itself, for what no log line says: a node that went silent for good. */
import type { ClassifierEvent, Verdict } from './events.js';
import type { GroupVerdict } from './group-types.js';
import { formatDuration } from './duration.js';
import type { Stage } from './vocabulary.js';

export function lostVerdict(options: { node: number; stage: Stage; now: number; since: number; silentMs: number; intervalMs: number }): Verdict {
  const { node, stage } = options;
  return {
    verdict: 'failed',
    stage,
    at: options.now,
    elapsedMs: options.now - options.since,
    reason: `no event or heartbeat from node ${node} for ${formatDuration(options.silentMs)} (three heartbeat intervals of ${formatDuration(options.intervalMs)})`,
    cause: 'unknown',
    rule: 'group/stopped-reporting',
    message: `node ${node} stopped reporting in ${stage}`,
    hint: `Look at node ${node} itself: the host may be down, the network between it and the head cut, or its spinup killed.`,
    evidence: [],
    symptoms: [],
    silentMs: options.silentMs,
  };
}

/** A node's own after-ready failure, as a failed verdict the group can rank and report. */
export function afterReadyVerdict(event: Extract<ClassifierEvent, { type: 'after-ready-failure' }>, now: number): Verdict {
  return {
    verdict: 'failed',
    stage: 'ready',
    at: now,
    elapsedMs: 0,
    reason: `crashed after ready: ${event.message}`,
    cause: event.cause,
    rule: event.rule,
    message: event.message,
    evidence: [{ ...event.line }],
    symptoms: [],
  };
}

/** The group's verdict as one node verdict: what the named node said, under the group's word and stage. */
export function namedVerdict(group: GroupVerdict): Verdict {
  const base: Verdict = group.detail ?? { verdict: group.verdict, stage: group.stage, at: group.at, elapsedMs: group.elapsedMs, reason: group.reason, evidence: [], symptoms: [] };
  return { ...base, verdict: group.verdict, stage: group.stage, reason: group.reason };
}

/** A follower's READY: its head said the group is READY (a follower prints no ready line of its own). */
export function groupReadyVerdict(options: { node: number; stage: Stage; at: number; elapsedMs: number }): Verdict {
  return {
    verdict: 'ready',
    stage: 'ready',
    at: options.at,
    elapsedMs: options.elapsedMs,
    reason: `the head says the group is READY; this node (node ${options.node}) joined it from stage ${options.stage} with no failure`,
    evidence: [],
    symptoms: [],
  };
}
