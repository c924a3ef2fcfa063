import { describe, expect, it } from 'vitest';
import { Session, type LineWhere, type SessionEvent, type SessionObserver } from '../../src/core/session.js';
import { shippedPack } from '../helpers/classify.js';
import { sg, sglangHealthyStart } from '../helpers/log-lines.js';

const packs = [shippedPack('sglang'), shippedPack('vllm')];
const READY = sg('12:00:35', 'The server is fired up and ready to roll!');

/** Writes down what it is told, in order. */
class Recorder implements SessionObserver {
  readonly seen: string[] = [];
  readonly told: SessionEvent[] = [];

  events(batch: readonly SessionEvent[]): void {
    for (const event of batch) this.seen.push(`event ${event.type}`);
    this.told.push(...batch);
  }

  line(raw: string, _session: Session, where: LineWhere): void {
    this.seen.push(`line ${where.lineNo ?? '?'} ${raw.length > 0}`);
  }
}

describe('Session observers', () => {
  it('see every event the session returns, then the line that gave them, with where it sits', () => {
    const watcher = new Recorder();
    const session = new Session({ packs, observers: [watcher] });
    const returned = [...[...sglangHealthyStart(), READY].flatMap((line, i) => session.push(line, { lineNo: i + 1, wall: 1000 + i })), ...session.end()];
    expect(watcher.told).toEqual(returned);
    expect(returned.some((e) => e.type === 'verdict')).toBe(true);
    // The family is detected on the first line: its events come before that line's hook.
    expect(watcher.seen.slice(0, 3)).toEqual(['event family', 'event stage', 'line 1 true']);
    expect(watcher.seen.filter((s) => s.startsWith('line'))).toHaveLength(sglangHealthyStart().length + 1);
  });

  it('observe() follows from now on, and its unfollow stops it', () => {
    const session = new Session({ packs, family: 'sglang' });
    const [first, second, ...rest] = sglangHealthyStart();
    session.push(first!);
    const watcher = new Recorder();
    const unfollow = session.observe(watcher);
    expect(session.observers).toEqual([watcher]);
    session.push(second!, { lineNo: 2 });
    unfollow();
    for (const line of rest) session.push(line);
    expect(watcher.seen.filter((s) => s.startsWith('line'))).toEqual(['line 2 true']);
    expect(session.observers).toEqual([]);
  });
});
