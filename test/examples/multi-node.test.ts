import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { groupRole } from '../../src/cli/run/group-options.js';
import { familyFromCommand } from '../../src/cli/run/family.js';
import { parseRunArgs, type RunOptions } from '../../src/cli/run/options.js';
import { budgetFor } from '../../src/core/budgets.js';
import { STAGES } from '../../src/core/vocabulary.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';
import { repoRoot } from '../helpers/run-main.js';
import { SHAPES, strictProblems } from './kubernetes-yaml.js';
import { readSpinupImage } from './spinup-image.js';

// examples/leaderworkerset/ and examples/slurm/ checked offline: every field is one the API knows,
// and each node's command line, with the variables LWS or Slurm fill in, is a spinup run that
// plays the right part (the leader the head of a group of `size`, the workers pushing to it).
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
// Where the spinup image's entrypoint copies the executable (examples/kubernetes/image/Dockerfile).
const EXECUTABLE = readSpinupImage(repoRoot).entrypoint.at(-1)!;
const PACKS = FAMILIES.map((f) => loadPack(f));
const scratch = mkdtempSync(join(tmpdir(), 'spinup-examples-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function load(file: string): Doc {
  const docs = parseAllDocuments(readFileSync(join(repoRoot, 'examples/leaderworkerset', file), 'utf8'));
  expect(docs).toHaveLength(1);
  expect(docs[0]!.errors).toEqual([]);
  return docs[0]!.toJS() as Doc;
}

/** Kubernetes' own `$(VAR)` expansion of a container's command, with the variables LWS sets. */
function expand(command: string[], env: Record<string, string>): string[] {
  return command.map((arg) => arg.replace(/\$\(([A-Z_]+)\)/g, (_, name: string) => env[name] ?? `$(${name})`));
}

/** A node's spinup run: `spinup` on the PATH (Slurm), or the executable an init container copied into the pod (LWS). */
function runOf(argv: string[], program = 'spinup'): RunOptions {
  const [given, command, ...rest] = argv;
  expect([given, command]).toEqual([program, 'run']);
  const parsed = parseRunArgs(rest);
  if (parsed.kind !== 'run') throw new Error(`not a valid spinup run: ${JSON.stringify(parsed)}`);
  return parsed.options;
}

/** The longest start the pack lets go on without STALLED: every stage silent just under its budget. */
function packBudgetS(family: string): number {
  const pack = loadPack(family);
  const stages = new Set(pack.markers.map((m) => m.stage));
  return STAGES.filter((s) => stages.has(s) && s !== 'ready').reduce((sum, s) => sum + budgetFor(pack, s, {}).ms / 1000, 0);
}

describe('examples/leaderworkerset', () => {
  it.for(['sglang-lws.yaml', 'vllm-lws.yaml'])('%s: known fields; the leader is the head of the group, the workers push to it', (file) => {
    const doc = load(file);
    expect(strictProblems(doc, SHAPES.LeaderWorkerSet!)).toEqual([]);
    const { size, leaderTemplate, workerTemplate } = doc.spec.leaderWorkerTemplate;
    expect(size).toBeGreaterThan(1);
    const family = file.split('-')[0]!;
    const leaderAddress = `${doc.metadata.name}-0.${doc.metadata.name}.default`;
    const lws = { LWS_LEADER_ADDRESS: leaderAddress, LWS_GROUP_SIZE: String(size) };
    const [leader] = leaderTemplate.spec.containers;
    const [worker] = workerTemplate.spec.containers;
    // Both take the token from one secret; the head listens on every interface, so it needs one.
    const tokenRef = (c: Doc): unknown => c.env.find((e: Doc) => e.name === 'SPINUP_GROUP_TOKEN')?.valueFrom?.secretKeyRef;
    expect(tokenRef(leader)).toBeDefined();
    expect(tokenRef(worker)).toEqual(tokenRef(leader));
    const env = { ...lws, SPINUP_GROUP_TOKEN: 'from-the-secret' };

    // Stock server images: spinup is copied into each pod (the init container of kubernetes.test.ts's checks).
    for (const template of [leaderTemplate, workerTemplate]) {
      expect(template.spec.containers[0].image).toMatch(/^(vllm\/vllm-openai|lmsysorg\/sglang):/);
      expect(template.spec.initContainers).toEqual([{ name: 'spinup', image: expect.stringMatching(/\/spinup:\d+\.\d+\.\d+$/), volumeMounts: [{ name: 'spinup', mountPath: '/opt/spinup' }] }]);
      expect(template.spec.volumes).toContainEqual({ name: 'spinup', emptyDir: {} });
      expect(template.spec.containers[0].volumeMounts).toContainEqual({ name: 'spinup', mountPath: '/opt/spinup', readOnly: true });
    }
    const head = runOf(expand(leader.command, lws), EXECUTABLE);
    expect(familyFromCommand({ command: head.command, args: head.args, packs: PACKS })).toBe(family);
    // The size from the server's own --nnodes (LWS's variable filled in), as its log will say it.
    expect(groupRole(head.group, head.listen, env, head.args)).toEqual({ role: 'head', expected: { size, from: 'command' }, token: 'from-the-secret', heartbeatMs: 5_000 });
    expect(() => groupRole(head.group, head.listen, lws, head.args)).toThrow(/needs a shared token/);
    expect(head.args.join(' ')).toContain(`--nnodes ${size} --node-rank 0`);

    for (let rank = 1; rank < size; rank++) {
      const follower = runOf(expand(worker.command, { ...lws, LWS_WORKER_INDEX: String(rank) }), EXECUTABLE);
      expect(familyFromCommand({ command: follower.command, args: follower.args, packs: PACKS })).toBe(family);
      expect(groupRole(follower.group, follower.listen, env, follower.args)).toEqual({ role: 'follower', leader: `http://${leaderAddress}:${head.listen!.port}`, node: rank, token: 'from-the-secret', heartbeatMs: 5_000 });
      expect(follower.args.join(' ')).toContain(`--nnodes ${size} --node-rank ${rank}`);
    }

    // Probes: the leader's on the group, each worker's on its own start; the backstop covers the pack.
    const port = (c: Doc, name: string): number => c.ports.find((p: Doc) => p.name === name).containerPort;
    expect(port(leader, 'spinup')).toBe(head.listen!.port);
    expect(new URL(head.health!).port).toBe(String(port(leader, 'http')));
    for (const [kind, path] of [['startupProbe', '/startupz'], ['readinessProbe', '/readyz'], ['livenessProbe', '/livez']] as const) expect(leader[kind].httpGet).toEqual({ path, port: 'spinup' });
    expect(worker.startupProbe.httpGet).toEqual({ path: '/startupz', port: 'spinup' });
    expect(worker.readinessProbe).toBeUndefined();
    for (const c of [leader, worker]) expect(c.startupProbe.failureThreshold * c.startupProbe.periodSeconds).toBeGreaterThanOrEqual(packBudgetS(family));
  });
});

describe('the strict walk over a LeaderWorkerSet', () => {
  it('catches a misspelt restart policy, which the API server would drop (and the group would not restart together)', () => {
    const doc = load('sglang-lws.yaml');
    const template = doc.spec.leaderWorkerTemplate;
    template.restartPolicyy = template.restartPolicy;
    delete template.restartPolicy;
    expect(strictProblems(doc, SHAPES.LeaderWorkerSet!)).toEqual([expect.stringMatching(/^spec\.leaderWorkerTemplate\.restartPolicyy: unknown key/)]);
  });
});

describe('examples/slurm/sglang-2-nodes.sbatch', () => {
  it('run under stand-ins for srun and scontrol, node 0 starts the head and node 1 a follower pushing to it', () => {
    const bin = join(scratch, 'bin');
    const record = join(scratch, 'record');
    mkdirSync(bin, { recursive: true });
    mkdirSync(record, { recursive: true });
    const shim = (name: string, text: string): void => {
      writeFileSync(join(bin, name), text);
      chmodSync(join(bin, name), 0o755);
    };
    shim('scontrol', '#!/bin/sh\nprintf "gpu-a\\ngpu-b\\n"\n');
    // srun: drop its own options, run the task once per node as Slurm would (here one after the other).
    shim('srun', '#!/bin/bash\nwhile [ "${1#--}" != "$1" ]; do shift; done\nfor id in 0 1; do SLURM_NODEID=$id SLURM_NNODES=2 "$@" || exit $?; done\n');
    shim('spinup', `#!${process.execPath}\nrequire('node:fs').writeFileSync(process.env.RECORD + '/' + process.env.SLURM_NODEID + '.json', JSON.stringify({ argv: process.argv.slice(2), token: process.env.SPINUP_GROUP_TOKEN, nnodes: process.env.SLURM_NNODES }));\n`);
    const ran = spawnSync('bash', [join(repoRoot, 'examples/slurm/sglang-2-nodes.sbatch')], {
      env: { PATH: `${bin}:${process.env.PATH}`, RECORD: record, SLURM_JOB_NODELIST: 'gpu-[a-b]' },
      encoding: 'utf8',
    });
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    const node = (id: number): { argv: string[]; token: string; nnodes: string } => JSON.parse(readFileSync(join(record, `${id}.json`), 'utf8'));
    const [n0, n1] = [node(0), node(1)];
    expect(n0.token).toMatch(/^[0-9a-f]{32}$/);
    expect(n1.token).toBe(n0.token);
    const env = { SLURM_NNODES: '2', SPINUP_GROUP_TOKEN: n0.token };
    const head = runOf(['spinup', ...n0.argv]);
    const follower = runOf(['spinup', ...n1.argv]);
    expect(groupRole(head.group, head.listen, env, head.args)).toMatchObject({ role: 'head', expected: { size: 2, from: 'command' } });
    expect(groupRole(head.group, head.listen, env)).toMatchObject({ role: 'head', expected: { size: 2, from: 'env' } });
    expect(groupRole(follower.group, follower.listen, env, follower.args)).toMatchObject({ role: 'follower', leader: `http://gpu-a:${head.listen!.port}`, node: 1 });
    expect(familyFromCommand({ command: head.command, args: head.args, packs: PACKS })).toBe('sglang');
    expect(head.args.join(' ')).toContain('--dist-init-addr gpu-a:20000 --nnodes 2 --node-rank 0');
    expect(follower.args.join(' ')).toContain('--dist-init-addr gpu-a:20000 --nnodes 2 --node-rank 1');
  });
});
