/** Reading a node's rank and the group's size from the lines every node prints. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addNodeFacts, nodeFactsOf, type NodeFacts } from '../../src/core/node-facts.js';

const fixtures = join(import.meta.dirname, '../../fixtures');
function factsOfLog(path: string): NodeFacts {
  return readFileSync(join(fixtures, path), 'utf8').split('\n').reduce<NodeFacts>((known, line) => addNodeFacts(known, nodeFactsOf(line)), {});
}

describe('nodeFactsOf', () => {
  it.for([
    ["'10.0.0.1:5000', nnodes=2, node_rank=0, json_model_override_args='{}'", { nnodes: 2, rank: 0 }],
    ["non-default args: {'model': 'x', 'nnodes': 2, 'node_rank': 1, 'headless': True}", { nnodes: 2, rank: 1, follower: true }],
    ['host-b:88008:88008 [2] NCCL INFO comm 0xafd6da0 rank 10 nRanks 16 nNodes 2 localRanks 8 localRank 2 MNNVL 0', { rank: 1, nnodes: 2 }],
    ['host-a:75208:75208 [4] NCCL INFO comm 0xb9b7660 rank 4 nRanks 16 nNodes 2 localRanks 8 localRank 4 MNNVL 0', { rank: 0, nnodes: 2 }],
    ['[2025-02-08 00:25:05 TP0] Init torch distributed begin.', undefined],
  ] as const)('%s', ([line, facts]) => {
    expect(nodeFactsOf(line)).toEqual(facts);
  });

  it('reads node 0 and node 1 from the two real node logs of sgl-project/sglang#3398', () => {
    expect(factsOfLog('sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log')).toMatchObject({ rank: 0, nnodes: 2 });
    expect(factsOfLog('sglang/19-multinode-h20-node1-hang-after-nccl-init.log')).toMatchObject({ rank: 1, nnodes: 2 });
  });
});
