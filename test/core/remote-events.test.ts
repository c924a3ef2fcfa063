import { describe, expect, it } from 'vitest';
import { eventJson } from '../../src/cli/format/verdict-json.js';
import { sessionEventFromJson } from '../../src/core/remote-events.js';
import type { SessionEvent } from '../../src/core/session.js';
import { fixtureLines } from '../helpers/status-model.js';
import { Session } from '../../src/core/session.js';
import { shippedPack } from '../helpers/classify.js';

// A follower's events cross the wire as their --json objects; the head rebuilds what the group weighs.
function eventsOf(relative: string): SessionEvent[] {
  const session = new Session({ packs: [shippedPack('sglang'), shippedPack('vllm')] });
  let lineNo = 0;
  const events = fixtureLines(relative).flatMap((line) => session.push(line, { lineNo: ++lineNo }));
  return [...events, ...session.end()];
}

describe('sessionEventFromJson', () => {
  it('rebuilds the stages and the verdict of a real failed start from their JSON', () => {
    const events = eventsOf('sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log');
    const rebuilt = events.map((e) => sessionEventFromJson(JSON.parse(JSON.stringify(eventJson(e)))));
    const stages = events.filter((e) => e.type === 'stage').map((e) => e.stage);
    expect(stages.length).toBeGreaterThan(0);
    expect(rebuilt.flatMap((e) => (e?.type === 'stage' ? [e.stage] : []))).toEqual(stages);
    const verdict = events.find((e) => e.type === 'verdict');
    const back = rebuilt.find((e) => e?.type === 'verdict');
    if (verdict?.type !== 'verdict' || back?.type !== 'verdict') throw new Error('no verdict');
    expect(back.verdict).toMatchObject({
      verdict: verdict.verdict.verdict,
      stage: verdict.verdict.stage,
      cause: verdict.verdict.cause,
      rule: verdict.verdict.rule,
      message: verdict.verdict.message,
      reason: verdict.verdict.reason,
    });
    expect(back.verdict.evidence.map((e) => e.text)).toEqual(verdict.verdict.evidence.map((e) => e.text));
  });

  it.for([
    ['not an object', 'stage'],
    ['an unknown type', { type: 'launch_missiles' }],
    ['a stage outside the vocabulary', { type: 'stage', stage: 'warp_drive' }],
    ['a verdict outside the vocabulary', { type: 'verdict', verdict: 'maybe', stage: 'none' }],
    ['a progress event (alive, nothing to weigh)', { type: 'progress', stage: 'load_weights', at_ms: 1 }],
  ] as const)('drops %s', ([, value]) => {
    expect(sessionEventFromJson(value)).toBeUndefined();
  });

  it('keeps a cause outside the vocabulary out of the verdict', () => {
    const back = sessionEventFromJson({ type: 'verdict', verdict: 'failed', stage: 'load_weights', cause: 'gremlins', reason: 'x', evidence: [{ line: 3, text: 'boom' }, 'junk'] });
    expect(back).toMatchObject({ type: 'verdict', verdict: { verdict: 'failed', stage: 'load_weights', evidence: [{ lineNo: 3, text: 'boom' }] } });
    expect(back?.type === 'verdict' && back.verdict.cause).toBeUndefined();
  });
});
