/** Builds the verdict that ends a run, from what the run state knows at that moment. */
import type { Budget, LogLine, Verdict } from './events.js';
import { bestCandidate, TIER } from './root-cause.js';
import type { RunState } from './run-state.js';
import type { VerdictKind } from './vocabulary.js';

export function readyVerdict(run: RunState, at: number, line: LogLine): Verdict {
  run.pendingReady = undefined;
  if (run.stage !== 'ready') {
    run.stage = 'ready';
    run.stageSince = at;
  }
  const verdict = settle(run, 'ready', at, 'the server printed its ready line');
  verdict.decidedBy = line;
  return verdict;
}

export function failedVerdict(run: RunState, at: number, line?: LogLine): Verdict {
  const best = bestCandidate(run.candidates);
  // Nothing but a wrapper saying the start is dead: its cause was printed before the part read.
  const elsewhere = best?.tier === TIER.wrapper;
  const reason = elsewhere ? 'the root cause is not in the input: only a wrapper saying the start failed' : best ? `root cause: ${best.message}` : 'the server reported a fatal error';
  const verdict = settle(run, 'failed', at, reason);
  if (elsewhere) verdict.causeElsewhere = true;
  verdict.decidedBy = line ?? run.failing?.line ?? run.uncaught?.line ?? run.lastWords?.line;
  verdict.cause = best?.cause ?? 'unknown';
  verdict.rule = best?.ruleId;
  verdict.message = best?.message;
  verdict.hint = best?.hint;
  verdict.evidence = best?.evidence ?? [];
  verdict.rank = verdict.evidence[0]?.rank;
  verdict.proc = verdict.evidence[0]?.proc;
  verdict.symptoms = run.symptoms.filter((symptom) => !verdict.evidence.some((e) => e.lineNo === symptom.lineNo));
  return verdict;
}

export function stalledVerdict(run: RunState, at: number, budget: Budget, why: 'silence' | 'server', line?: LogLine): Verdict {
  const since = run.lastActivityAt ?? run.startedAt ?? at;
  const reason =
    why === 'silence' ? `no progress in stage ${run.stage} for longer than its budget` : `the server itself reports a hang in stage ${run.stage}`;
  const verdict = settle(run, 'stalled', at, reason);
  verdict.budget = budget;
  verdict.silentMs = at - since;
  verdict.decidedBy = line;
  return verdict;
}

export function incompleteVerdict(run: RunState, at: number): Verdict {
  return settle(run, 'incomplete', at, 'the input ended before any verdict');
}

function settle(run: RunState, kind: VerdictKind, at: number, reason: string): Verdict {
  const verdict: Verdict = {
    verdict: kind,
    stage: run.stage,
    at,
    elapsedMs: at - (run.startedAt ?? at),
    reason,
    evidence: [],
    symptoms: [],
    lastLine: run.lastLine,
  };
  run.verdict = verdict;
  return verdict;
}
