/** Group fixtures: discovery of NAME.group/ folders, the `node` key, and one test per shipped group. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverFixtures } from '../../src/replay/discover.js';
import { readExpectation } from '../../src/replay/expectation.js';
import { loadPacks } from '../../src/replay/load-families.js';
import { runCase } from '../../src/replay/run-case.js';
import { runGroupCase } from '../../src/replay/run-group-case.js';

const root = join(import.meta.dirname, '../../fixtures');
const { groups } = discoverFixtures([join(root, 'sglang'), join(root, 'vllm')]);
const packs = loadPacks();
const NODE0 = join(root, 'sglang/37-multinode-head-gloo-peer-closed-during-cudagraph.log');
const NODE1 = join(root, 'sglang/38-multinode-worker-nccl-watchdog-timeout.log');

/** A group folder in a scratch directory: the two real logs of sglang#3254 under an expectation of our own. */
function scratchGroup(expect: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'spinup-group-'));
  const group = join(dir, 'pair.group');
  mkdirSync(group);
  copyFileSync(NODE0, join(group, 'node0.log'));
  copyFileSync(NODE1, join(group, 'node1.log'));
  writeFileSync(join(dir, 'pair.expect.yaml'), expect);
  return dir;
}

describe('group fixtures', () => {
  it('are discovered as folders beside their expectation, nodes by rank, and their node logs are not single fixtures', () => {
    expect(groups.map((g) => basename(g.dir))).toEqual(['18-19-multinode-h20-2nodes-gloo-rendezvous-timeout.group', '37-38-multinode-h100-2nodes-worker-nccl-timeout.group']);
    expect(groups[0]!.nodes.map((n) => [n.node, basename(n.log)])).toEqual([[0, 'node0.log'], [1, 'node1.log']]);
    const { pairs } = discoverFixtures([root]);
    expect(pairs.some((p) => p.log.includes('.group/'))).toBe(false);
  });

  it('hold the real node logs byte for byte', () => {
    const [first, second] = groups;
    expect(readFileSync(first!.nodes[0]!.log)).toEqual(readFileSync(join(root, 'sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log')));
    expect(readFileSync(first!.nodes[1]!.log)).toEqual(readFileSync(join(root, 'sglang/19-multinode-h20-node1-hang-after-nccl-init.log')));
    expect(readFileSync(second!.nodes[0]!.log)).toEqual(readFileSync(NODE0));
    expect(readFileSync(second!.nodes[1]!.log)).toEqual(readFileSync(NODE1));
  });

  it.for(groups.map((g) => ({ ...g, name: basename(g.dir) })))('$name', (group) => {
    const result = runGroupCase(group, { packs });
    expect(result.mismatches).toEqual([]);
    expect(result.expected.node).toBeDefined();
  });

  it('the worker of sglang#3254 is the root cause; the head\'s gloo error is set aside with its node', () => {
    const result = runGroupCase(groups[1]!, { packs });
    expect(result.group).toMatchObject({ verdict: 'failed', node: 1 });
    expect(result.group.setAside).toEqual([{ node: 0, verdict: expect.objectContaining({ cause: 'distributed_error', rule: 'common/gloo-peer-closed' }) }]);
  });

  it('a wrong node in the expectation is a mismatch', () => {
    const dir = scratchGroup('verdict: failed\ncause: nccl_timeout\nnode: 0\n');
    const [group] = discoverFixtures([dir]).groups;
    expect(runGroupCase(group!, { packs }).mismatches).toEqual([{ field: 'node', expected: '0', actual: '1' }]);
  });

  it('node takes a rank or a list of ranks; anything else is an error, and a single log may not name one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spinup-expect-'));
    const file = (name: string, yaml: string): string => {
      writeFileSync(join(dir, name), yaml);
      return join(dir, name);
    };
    expect(readExpectation(file('a.expect.yaml', 'verdict: failed\nnode: [0, 1]\n')).node).toEqual([0, 1]);
    expect(() => readExpectation(file('b.expect.yaml', 'verdict: failed\nnode: head\n'))).toThrowError(/unknown node "head"/);
    copyFileSync(NODE0, join(dir, 'c.log'));
    file('c.expect.yaml', 'verdict: failed\nnode: 0\n');
    expect(() => runCase({ log: join(dir, 'c.log'), expect: join(dir, 'c.expect.yaml') }, { packs })).toThrowError(/only applies to a group fixture/);
  });
});
