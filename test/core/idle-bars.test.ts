/**
 * A known bar's frame that core leaves unread (Classifier.idleBarFrame: it moved only its
 * counters, or only its elapsed second where the log clock would not follow) changes nothing:
 * a session that reads every frame through the rules (an observer turns the shortcut off, as for
 * `explain`) gives the same events and verdict, at the same times, on every fixture and on
 * generated starts of 8 ranks' bars, `\n`- and `\r`-separated.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session, type SessionEvent } from '../../src/core/session.js';
import { shippedPack } from '../helpers/classify.js';
import { repoRoot } from '../helpers/run-main.js';
// @ts-expect-error: the bench's generator is plain JavaScript without types.
import { generateRankBars } from '../bench/generate-rank-bars.mjs';

const packs = [shippedPack('sglang'), shippedPack('vllm')];

/** The events and verdict of `lines`, with the shortcut or reading every frame; and how many frames the rules read. */
function outcome(lines: readonly string[], everyFrame: boolean): { events: SessionEvent[]; verdict: unknown; frames: number } {
  let frames = 0;
  const observer = everyFrame ? { fed: () => void frames++ } : undefined;
  const session = new Session({ packs, classifier: { observer } });
  const events: SessionEvent[] = [];
  lines.forEach((line, index) => events.push(...session.push(line, { lineNo: index + 1 })));
  events.push(...session.end());
  return { events, verdict: session.verdict, frames };
}

function expectSame(lines: readonly string[], label: string): void {
  const skipping = outcome(lines, false);
  const reading = outcome(lines, true);
  expect(skipping.verdict, label).toEqual(reading.verdict);
  expect(skipping.events, label).toEqual(reading.events);
}

describe('bar frames left unread', () => {
  it('change nothing on any fixture', () => {
    const root = join(repoRoot, 'fixtures');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.log'));
    expect(files.length).toBeGreaterThan(200);
    for (const file of files) expectSame(readFileSync(join(root, file), 'utf8').split('\n'), file);
  }, 180_000);

  for (const separator of ['\n', '\r'] as const) {
    it(`change nothing on 8 ranks' bars (${JSON.stringify(separator)}), where most frames are left unread`, () => {
      const file = join(mkdtempSync(join(tmpdir(), 'spinup-idle-bars-')), 'rank-bars.log');
      generateRankBars(file, { size: 6_000_000, seed: 11, separator });
      const lines = readFileSync(file, 'utf8').split('\n');
      expectSame(lines, file);
      // The session compared with read every frame through the rules.
      const frames = lines.reduce((n, line) => n + (line.match(/Loading safetensors checkpoint shards/g)?.length ?? 0), 0);
      expect(outcome(lines, true).frames).toBeGreaterThan(frames);
    }, 180_000);
  }

  it("change nothing when a bar drawn at 00:00 again after the clock moved takes its start anew", () => {
    const fixture = readFileSync(`${repoRoot}/fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log`, 'utf8').split('\n');
    const head = fixture.slice(0, fixture.findIndex((line) => line.includes('Load weight begin')) + 1);
    const bar = (done: number, time: string): string => `(Worker_TP0 pid=41200) Loading safetensors checkpoint shards:   ${done * 2}% Completed | ${done}/49 [${time}<?, ?it/s]`;
    // 30 s of the log's own time pass between the two frames at 00:00: the bar's 00:40 is 40 s after the second.
    const lines = [...head, bar(0, '00:00'), '[2025-04-20 14:03:42 TP0] Using model weights format', bar(0, '00:00'), bar(1, '00:40'), '[2025-04-20 14:04:30 TP0] Load weight end.'];
    const skipping = outcome(lines, false);
    const progress = skipping.events.filter((e) => e.type === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    expectSame(lines, 'a bar started again');
  });

  it('change nothing when the bars alone keep the time: a load stuck until its budget runs out', () => {
    // A real start up to its weight loading, then 8 ranks' bars, a frame a second each, that
    // stop at 10 of 49 shards: only their elapsed times move the clock, to the stall.
    const fixture = readFileSync(`${repoRoot}/fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log`, 'utf8').split('\n');
    const lines = fixture.slice(0, fixture.findIndex((line) => line.includes('Load weight begin')) + 1);
    const clock = (s: number): string => `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
    for (let second = 0; second <= 80 * 60; second++) {
      for (let rank = 0; rank < 8; rank++) {
        const done = Math.min(10, Math.floor(second / (3 + rank)));
        lines.push(`(Worker_TP${rank} pid=${41200 + rank}) Loading safetensors checkpoint shards:  ${String(Math.floor((done / 49) * 100)).padStart(2)}% Completed | ${done}/49 [${clock(second)}<${clock(49 - done)}, ${(1 + rank / 10).toFixed(2)}s/it]`);
      }
    }
    const skipping = outcome(lines, false);
    expect(skipping.verdict).toMatchObject({ verdict: 'stalled', stage: 'load_weights' });
    expectSame(lines, 'a stuck load');
  }, 180_000);
});
