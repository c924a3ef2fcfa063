/**
 * A family no TypeScript knows: a small pack of a made-up server ("acme") written to a temp dir,
 * with its own detection, launch-command markers and argument dump, classifies its logs through
 * `watch`, `replay`, `lint` and `explain`. Family knowledge lives in packs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { familyFromCommand } from '../../src/cli/run/family.js';
import { readHistory } from '../../src/history/history-store.js';
import { loadPack } from '../../src/pack/load-pack.js';
import { runMain } from '../helpers/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-acme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PACK = join(dir, 'acme.yaml');

writeFileSync(
  PACK,
  `pack: acme
description: 'AcmeServe, a made-up inference server: proves a family needs only a pack.'
timing:
  default_budget: 10m
detect:
  - id: acme/detect-banner
    pattern: 'AcmeServe v\\d+\\.\\d+ starting'
    description: 'The banner AcmeServe prints first.'
launch:
  - id: acme/launch-command
    pattern: '^acme(?:serve|\\.server)$'
    description: 'The program (acmeserve) or module (python -m acme.server).'
start_facts:
  - id: acme/args-dump
    pattern: '\\bAcmeArgs\\('
    close: ')'
    model: [checkpoint]
    tp: [shards]
    description: 'AcmeServe prints its arguments as AcmeArgs(checkpoint=..., shards=N).'
stages:
  - stage: launch
    markers:
      - id: acme/banner
        pattern: 'AcmeServe v\\d+\\.\\d+ starting'
        description: 'The banner.'
  - stage: load_weights
    markers:
      - id: acme/load
        pattern: 'loading checkpoint \\S+'
        description: 'Weights start loading.'
  - stage: kv_cache
    markers:
      - id: acme/kv
        pattern: 'reserved \\d+ KV blocks'
        description: 'The KV cache is reserved.'
ready:
  - id: acme/ready
    pattern: 'AcmeServe is accepting requests'
    description: 'The ready line.'
failures:
  - id: acme/checkpoint-missing
    pattern: 'checkpoint (?<path>\\S+) not found'
    description: 'The checkpoint path does not exist.'
    cause: model_unavailable
    message: 'checkpoint {{path}} not found'
    hint: 'Check the checkpoint path.'
    source: 'made up for this test'
`,
);

const stamp = (s: number): string => `2026-01-05 10:00:${String(s).padStart(2, '0')}`;
const READY = [
  `${stamp(0)} AcmeServe v1.2 starting`,
  `${stamp(1)} AcmeArgs(checkpoint='acme/tiny-7b', shards=2)`,
  `${stamp(2)} loading checkpoint acme/tiny-7b`,
  `${stamp(9)} reserved 4096 KV blocks`,
  `${stamp(12)} AcmeServe is accepting requests`,
];
const FAILED = [`${stamp(0)} AcmeServe v1.2 starting`, `${stamp(2)} loading checkpoint /models/gone`, `${stamp(3)} checkpoint /models/gone not found`];

const logs = join(dir, 'acme');
mkdirSync(logs, { recursive: true });
writeFileSync(join(logs, '01-ready.log'), `${READY.join('\n')}\n`);
writeFileSync(join(logs, '01-ready.expect.yaml'), 'family: acme\nverdict: ready\nstage: ready\n');
writeFileSync(join(logs, '02-missing.log'), `${FAILED.join('\n')}\n`);
writeFileSync(join(logs, '02-missing.expect.yaml'), `family: acme\nverdict: failed\nstage: load_weights\ncause: model_unavailable\nevidence: 'checkpoint /models/gone not found'\n`);

describe('a made-up third family, from a pack alone', () => {
  it('lint accepts the pack', async () => {
    const run = await runMain(['lint', PACK]);
    expect(run.stderr + run.stdout).not.toMatch(/error/);
    expect(run.code).toBe(0);
  });

  it('watch detects it and says READY, with the model and TP its argument dump gives', async () => {
    const history = join(dir, 'history.jsonl');
    const run = await runMain(['watch', '--no-follow', '--history', history, '--json', '--pack', PACK, join(logs, '01-ready.log')]);
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.find((e) => e.type === 'verdict')).toMatchObject({ verdict: 'ready', stage: 'ready' });
    expect(events.filter((e) => e.type === 'stage').map((e) => e.stage)).toEqual(['launch', 'load_weights', 'kv_cache']);
    const [record] = readHistory(history).records;
    expect(record).toMatchObject({ family: 'acme', model: 'acme/tiny-7b', tp: 2, verdict: 'ready' });
  });

  it('watch says FAILED with the rule\'s cause and message', async () => {
    const run = await runMain(['watch', '--no-follow', '--no-history', '--pack', PACK, join(logs, '02-missing.log')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAILED/);
    expect(run.stdout).toContain('checkpoint /models/gone not found');
  });

  it('replay passes both cases', async () => {
    const run = await runMain(['replay', '--pack', PACK, logs]);
    expect(run.stdout).toContain('2 passed, 0 failed');
    expect(run.code).toBe(0);
  });

  it('explain shows the rules that matched, by id', async () => {
    const run = await runMain(['explain', '--pack', PACK, join(logs, '02-missing.log')]);
    expect(run.stdout).toContain('acme/checkpoint-missing');
    expect(run.stdout).toContain('acme/load');
    expect(run.code).toBe(1);
  });

  it('run knows the family from the launch command, through the pack', () => {
    const packs = [loadPack('sglang'), loadPack('vllm'), loadPack(PACK)];
    expect(familyFromCommand({ command: '/usr/bin/acmeserve', args: ['--port', '9'], packs })).toBe('acme');
    expect(familyFromCommand({ command: 'python', args: ['-m', 'acme.server'], packs })).toBe('acme');
    expect(familyFromCommand({ command: 'python', args: ['-m', 'sglang.launch_server'], packs })).toBe('sglang');
    expect(familyFromCommand({ command: 'python', args: ['serve.py', '--model', 'acme'], packs })).toBeUndefined();
  });
});
