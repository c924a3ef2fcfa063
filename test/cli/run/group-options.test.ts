import { describe, expect, it } from 'vitest';
import { groupRole, groupRunOptions } from '../../../src/cli/run/group-options.js';
import { runMain } from '../../helpers/run-main.js';

const loopback = { host: '127.0.0.1', port: 9464, text: '9464' };
const everywhere = { host: '0.0.0.0', port: 9464, text: '0.0.0.0:9464' };

describe('the part a run plays in a group', () => {
  it.for([
    ['no group options', {}, loopback, {}, 'single'],
    ['--listen with LWS_GROUP_SIZE=2 (a LeaderWorkerSet leader)', {}, loopback, { LWS_GROUP_SIZE: '2' }, 'head'],
    ['--listen with SLURM_NNODES=1', {}, loopback, { SLURM_NNODES: '1' }, 'single'],
    ['LWS_GROUP_SIZE without --listen (nowhere to push to)', {}, undefined, { LWS_GROUP_SIZE: '4' }, 'single'],
    ['--group-leader and --node-rank (a worker, though LWS_GROUP_SIZE is set)', { 'group-leader': 'http://head:9464', 'node-rank': '1' }, loopback, { LWS_GROUP_SIZE: '2' }, 'follower'],
  ] as const)('%s: %s', ([, values, listen, env, role]) => {
    expect(groupRole(groupRunOptions(values), listen, env).role).toBe(role);
  });

  it.for([
    [['--nnodes', '2', '--node-rank', '0'], { size: 2, from: 'command' }],
    [['--nnodes=4'], { size: 4, from: 'command' }],
    [['--tp', '8'], { size: 3, from: 'env' }],
  ] as const)('the head reads its size from the server command %j before the environment', ([args, expected]) => {
    expect(groupRole(groupRunOptions({}), loopback, { SLURM_NNODES: '3' }, args)).toMatchObject({ role: 'head', expected });
  });

  it('the head takes --group-size over the environment, and the token from the environment', () => {
    expect(groupRole(groupRunOptions({ 'group-size': '16' }), everywhere, { SLURM_NNODES: '2', SPINUP_GROUP_TOKEN: 't' })).toEqual({ role: 'head', expected: { size: 16, from: 'option' }, token: 't', heartbeatMs: 5_000 });
  });

  it.for([
    ['a head beyond loopback without a token', ['--listen', '0.0.0.0:0', '--group-size', '2'], /needs a shared token: --group-token T or SPINUP_GROUP_TOKEN/],
    ['--group-size without --listen', ['--group-size', '2'], /--group-size needs --listen ADDR/],
    ['--group-leader without --node-rank', ['--group-leader', 'http://127.0.0.1:9464'], /--group-leader needs --node-rank N/],
    ['--node-rank without --group-leader', ['--node-rank', '1'], /--node-rank goes with --group-leader/],
    ['a follower claiming rank 0', ['--group-leader', 'http://127.0.0.1:9464', '--node-rank', '0'], /--node-rank 0 is the head/],
    ['a leader that is not an http URL', ['--group-leader', 'head:9464', '--node-rank', '1'], /--group-leader wants the head's --listen URL/],
    ['a heartbeat too short', ['--group-leader', 'http://127.0.0.1:9464', '--node-rank', '1', '--heartbeat', '10ms'], /--heartbeat wants at least 50ms/],
    ['a follower given a join budget (the head waits, issue 25 item 6)', ['--group-leader', 'http://127.0.0.1:9464', '--node-rank', '1', '--join-budget', '1m'], /--join-budget is the head's to give/],
  ] as const)('usage (exit 64, nothing launched): %s', async ([, args, message]) => {
    const run = await runMain(['run', '--no-state', ...args, '--', 'true']);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
