/** The fan-out of a live start's outputs: each call reaches every sink in order; close awaits them all. */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { allSinks } from '../../../src/cli/sinks/all-sinks.js';
import type { Sink } from '../../../src/cli/sinks/sink.js';
import { Collect } from '../../helpers/run-main.js';

/** A sink that records what reaches it, and whose close takes `closeMs` (real time) or fails. */
function recorder(name: string, calls: string[], close: { ms?: number; fails?: string; never?: boolean } = {}): Sink {
  return {
    name,
    message: (text) => calls.push(`${name} message ${text}`),
    close: async (end) => {
      if (close.never) await new Promise(() => {});
      await sleep(close.ms ?? 0);
      if (close.fails) throw new Error(close.fails);
      calls.push(`${name} closed ${end?.exitCode}`);
    },
  };
}

describe('allSinks', () => {
  it('hands each call to every sink in order, skipping those that do not show it', () => {
    const calls: string[] = [];
    const silent: Sink = { close: async () => {} };
    allSinks([recorder('a', calls), silent, undefined, recorder('b', calls)], { stderr: new Collect() }).message('hi');
    expect(calls).toEqual(['a message hi', 'b message hi']);
  });

  it('close awaits every sink, a slow one included, and passes the exit code', async () => {
    const calls: string[] = [];
    const sinks = allSinks([recorder('slow', calls, { ms: 300 }), recorder('quick', calls)], { stderr: new Collect() });
    await sinks.close({ exitCode: 1 });
    expect(calls).toEqual(['quick closed 1', 'slow closed 1']);
  });

  it('a sink whose close fails is said once on stderr, and the others still close', async () => {
    const calls: string[] = [];
    const stderr = new Collect();
    const sinks = allSinks([recorder('first', calls), recorder('--notify http://x', calls, { fails: 'connection refused' }), recorder('last', calls, { ms: 100 })], { stderr });
    await sinks.close({ exitCode: 0 });
    expect(calls).toEqual(['first closed 0', 'last closed 0']);
    expect(stderr.text).toBe('spinup: --notify http://x: connection refused\n');
  });

  it('a close that throws before it returns a promise does not stop the others', async () => {
    const calls: string[] = [];
    const stderr = new Collect();
    const throwing: Sink = {
      name: 'broken',
      close: () => {
        throw new Error('boom');
      },
    };
    await allSinks([throwing, recorder('after', calls)], { stderr }).close();
    expect(calls).toEqual(['after closed undefined']);
    expect(stderr.text).toBe('spinup: broken: boom\n');
  });

  it('a close that never ends is given up after the bound, once, without the others waiting for it', async () => {
    const calls: string[] = [];
    const stderr = new Collect();
    await allSinks([recorder('stuck', calls, { never: true }), recorder('fine', calls)], { stderr, closeBoundMs: 200 }).close();
    expect(calls).toEqual(['fine closed undefined']);
    expect(stderr.text).toMatch(/^spinup: stuck: did not finish within \S+; exiting without it\n$/);
  });
});
