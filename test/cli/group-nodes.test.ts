/** Which source is which node, and how many nodes the start should have. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planNodes } from '../../src/cli/group-nodes.js';
import { repoRoot } from '../helpers/run-main.js';

const NODE0 = 'fixtures/sglang/18-multinode-h20-node0-hang-30min-diststore-timeout.log';
const NODE1 = 'fixtures/sglang/19-multinode-h20-node1-hang-after-nccl-init.log';
const plan = (positionals: string[], extra: { nodeOptions?: string[]; groupSize?: string; env?: NodeJS.ProcessEnv } = {}) =>
  planNodes({ positionals, nodeOptions: extra.nodeOptions ?? [], groupSize: extra.groupSize, env: extra.env ?? {}, cwd: repoRoot });

describe('planNodes', () => {
  it('takes ranks the logs state, whatever the order; the size from nnodes in the log', () => {
    const p = plan([NODE1, NODE0]);
    expect(p.nodes.map((n) => [n.node, n.shown])).toEqual([[1, NODE1], [0, NODE0]]);
    expect(p.expected).toEqual({ size: 2, from: 'log' });
  });

  it('logs that state nothing take ranks in order; a vLLM headless log is never the head', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spinup-plan-'));
    writeFileSync(join(dir, 'a.log'), "INFO 05-01 10:00:00 [cli_args.py:1] non-default args: {'model': 'm', 'headless': True}\n");
    writeFileSync(join(dir, 'b.log'), 'INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0\n');
    const p = plan([join(dir, 'a.log'), join(dir, 'b.log'), 'cmd:cat x']);
    expect(p.nodes.map((n) => n.node)).toEqual([1, 0, 2]);
    expect(p.expected).toBeUndefined();
  });

  it('--group-size beats the log, the log beats LWS_GROUP_SIZE / SLURM_NNODES', () => {
    expect(plan([NODE0, NODE1], { groupSize: '4', env: { LWS_GROUP_SIZE: '8' } }).expected).toEqual({ size: 4, from: 'option' });
    expect(plan([NODE0, NODE1], { env: { LWS_GROUP_SIZE: '8' } }).expected).toEqual({ size: 2, from: 'log' });
    expect(plan(['cmd:a', 'cmd:b'], { env: { SLURM_NNODES: '3' } }).expected).toEqual({ size: 3, from: 'env' });
    expect(plan(['cmd:a', 'cmd:b'], { env: { LWS_GROUP_SIZE: '2', SLURM_NNODES: '3' } }).expected).toEqual({ size: 2, from: 'env' });
  });

  it('--node ranks are taken as given', () => {
    // A log that states no size: ranks as given (one beyond a known size is refused, below).
    const dir = mkdtempSync(join(tmpdir(), 'spinup-plan-'));
    writeFileSync(join(dir, 'n.log'), 'INFO 05-01 10:00:00 [api_server.py:1] vLLM API server version 0.9.0\n');
    const p = plan([], { nodeOptions: [`3=${join(dir, 'n.log')}`, '1=cmd:ssh host-b tail -F /data/server.log'] });
    expect(p.nodes.map((n) => [n.node, n.source.kind])).toEqual([[3, 'file'], [1, 'cmd']]);
    expect(p.nodes[1]!.source).toEqual({ kind: 'cmd', command: 'ssh host-b tail -F /data/server.log' });
  });

  it('--node refuses a rank beyond a known size, as a head refuses such a push (issue 25 item 7)', () => {
    expect(() => plan([], { nodeOptions: [`0=${NODE0}`, '2=cmd:cat x'], groupSize: '2' })).toThrow(/node 2 is out of range: this group has 2 nodes \(ranks 0-1, size from --group-size\)/);
    // The size NODE0's own log states (nnodes 2) counts too.
    expect(() => plan([], { nodeOptions: [`3=${NODE0}`, '1=cmd:cat x'] })).toThrow(/node 3 is out of range: .*size from the logs/);
    expect(plan([], { nodeOptions: [`0=${NODE0}`, '1=cmd:cat x'], groupSize: '2' }).nodes).toHaveLength(2);
  });
});
