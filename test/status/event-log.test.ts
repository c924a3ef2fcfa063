import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/status/event-log.js';

describe('EventLog', () => {
  it('numbers events from 1 and replays those after an id', () => {
    const log = new EventLog();
    for (const type of ['a', 'b', 'c']) log.append(type, `{"t":"${type}"}`);
    expect(log.since(0).map((e) => e.id)).toEqual([1, 2, 3]);
    expect(log.since(2)).toEqual([{ id: 3, type: 'c', data: '{"t":"c"}' }]);
    expect(log.since(3)).toEqual([]);
  });

  it('keeps at most maxEvents and maxBytes, dropping the oldest, and says which id is the oldest kept', () => {
    const byCount = new EventLog({ maxEvents: 5 });
    for (let i = 0; i < 5000; i++) byCount.append('x', String(i));
    expect(byCount.since(0).map((e) => e.id)).toEqual([4996, 4997, 4998, 4999, 5000]);
    expect(byCount.oldestId).toBe(4996);
    const byBytes = new EventLog({ maxBytes: 100 });
    for (let i = 0; i < 50; i++) byBytes.append('x', 'y'.repeat(30));
    expect(byBytes.since(0).map((e) => e.id)).toEqual([48, 49, 50]);
  });

  it('always keeps the latest event, however large', () => {
    const log = new EventLog({ maxBytes: 10 });
    log.append('x', 'y'.repeat(100));
    expect(log.since(0)).toHaveLength(1);
  });

  it('keeps the state-defining events apart: progress frames never rotate out the family, the stages or the verdict', () => {
    const log = new EventLog({ maxEvents: 5 });
    log.append('family', '{"family":"sglang"}');
    log.append('stage', '{"stage":"launch"}');
    for (let i = 0; i < 1000; i++) log.append('progress', String(i));
    log.append('stage', '{"stage":"load_weights"}');
    for (let i = 0; i < 1000; i++) log.append('progress', String(i));
    log.append('verdict', '{"verdict":"ready"}');
    const kept = log.since(0);
    expect(kept.map((e) => e.id)).toEqual([1, 2, 1003, 1999, 2000, 2001, 2002, 2003, 2004]);
    expect(kept.filter((e) => e.type !== 'progress').map((e) => e.type)).toEqual(['family', 'stage', 'stage', 'verdict']);
    expect(log.since(2, 2).map((e) => e.id)).toEqual([1003, 1999]);
    expect(log.oldestId).toBe(1);
    expect(log.droppedUpTo).toBe(1998);
    expect(log.keptStateEvents(0, 1998)).toBe(3);
  });

  it('bounds the state-defining events too (a start that restarts in a loop)', () => {
    const log = new EventLog({ maxStateEvents: 3 });
    for (let i = 0; i < 10; i++) log.append('stage', String(i));
    expect(log.since(0).map((e) => e.id)).toEqual([8, 9, 10]);
    expect(log.droppedUpTo).toBe(7);
  });
});
