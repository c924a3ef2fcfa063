/** Lining up the nodes of a finished start on one clock. */
import { describe, expect, it } from 'vitest';
import { alignOrigins, replayGroup } from '../../src/core/group-replay.js';
import type { SessionEvent } from '../../src/core/session.js';

const failed = (at: number, cause: 'gpu_oom' | 'nccl_timeout'): SessionEvent => ({
  type: 'verdict',
  verdict: { verdict: 'failed', stage: 'load_weights', at, elapsedMs: at, reason: cause, cause, evidence: [], symptoms: [] },
});

describe('group replay', () => {
  it('lines nodes up by their first timestamps; an unknown or far-off origin starts with the earliest', () => {
    expect(alignOrigins([{ origin: 10_000 }, { origin: 4_000 }, {}, { origin: 4_000 + 7 * 3_600_000 }])).toEqual([6_000, 0, 0, 0]);
  });

  it('feeds events in the order they happened across nodes: the earlier of two equal symptoms is the root', () => {
    // Node 0 starts 60 s after node 1 (by its first timestamp): its failure at 10 s of its own time is at 70 s.
    const { verdict } = replayGroup(
      [
        { node: 0, origin: 60_000, events: [failed(10_000, 'nccl_timeout')] },
        { node: 1, origin: 0, events: [failed(30_000, 'nccl_timeout')] },
      ],
      {},
    );
    expect(verdict).toMatchObject({ verdict: 'failed', node: 1, at: 33_000 });
  });

  it('takes the group size from a node log and applies a lost node after its last event', () => {
    const { verdict } = replayGroup(
      [
        { node: 0, events: [{ type: 'verdict', verdict: { verdict: 'ready', stage: 'ready', at: 5, elapsedMs: 5, reason: '', evidence: [], symptoms: [] } }], nnodes: 3 },
        { node: 1, events: [], lost: { verdict: 'failed', stage: 'none', at: 0, elapsedMs: 0, reason: 'killed', cause: 'host_oom', evidence: [], symptoms: [] } },
      ],
      {},
    );
    expect(verdict).toMatchObject({ verdict: 'failed', node: 1, expected: 3, expectedFrom: 'log' });
  });
});
