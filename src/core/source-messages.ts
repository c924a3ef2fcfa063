/**
 * The servers' own messages (the catalog, core/message-catalog.ts) as root-cause evidence on
 * lines the pack's rules leave open: a line that is one of their fatal messages, and a catch-all
 * rule's line whose words are one of them.
 */
import type { Evidence } from './events.js';
import { messageInference, raisedMessageCause } from './infer-cause.js';
import type { FrameMatch } from './match-frame.js';
import { lineMessage } from './message-catalog.js';
import type { CompiledInferenceTables } from './pack-types.js';
import { TIER, type Candidate } from './root-cause.js';
import type { Weighing } from './weigh-failures.js';

/**
 * A line the catalog knows as the servers' own fatal words (a native abort, a logged error the
 * process dies after) with no rule of the pack for it: a candidate with the source's cause. It
 * makes the start suspect, not failed: the verdict waits for a death sign (the end of the input,
 * the process's exit), and a start that moves on withdraws it. A line that is fatal only once an
 * exception follows explains that exception (tier `explains`).
 */
export function weighLineMessage(w: Weighing, match: FrameMatch, evidence: Evidence): void {
  const { frame } = match;
  const message = lineMessage(w.pack.inference.messages, frame.body, frame.level);
  if (!message) return;
  const { run } = w;
  const fatal = message.kind === 'fatal';
  // A benign line never fails a start; one the source says explains an exception after it still may.
  if (match.benign && fatal) return;
  // A rule of the pack read the line already (a warning, a wrapper): its candidate stands; the
  // catalog only adds that the source dies after it.
  if (match.failures.length > 0) {
    if (fatal) run.lastWords ??= { at: evidence.at, line: evidence };
    return;
  }
  const inferred = messageInference(w.pack.inference, message);
  const candidate: Candidate = { tier: fatal ? TIER.inferred : TIER.explains, seq: w.nextSeq(), cause: inferred.cause, ruleId: inferred.id, message: inferred.message, hint: inferred.hint, evidence: [evidence], superseded: false };
  if (!fatal) candidate.explains = true;
  run.candidates.push(candidate);
  // Its death sign is the end of the input or of the process: a silence alone is not one (a
  // catalog label can be wrong, and a healthy start may go quiet for long after such a line).
  if (fatal) run.lastWords ??= { at: evidence.at, line: evidence };
}

/**
 * A catch-all rule (`fallback`: "the config was rejected") says less than the source's own
 * message when the line is one: the message's cause wins, the rule's line stays the evidence.
 */
export function nameByMessage(tables: CompiledInferenceTables, candidate: Candidate, body: string, className: string): void {
  const inferred = raisedMessageCause(tables, body, className);
  if (!inferred || inferred.cause === candidate.cause) return;
  candidate.cause = inferred.cause;
  candidate.ruleId = inferred.id;
  candidate.message = `${inferred.message}: ${body.trim().slice(0, 200)}`;
  candidate.hint = inferred.hint;
}
