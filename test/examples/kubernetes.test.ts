import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { familyFromCommand } from '../../src/cli/run/family.js';
import { parseRunArgs } from '../../src/cli/run/options.js';
import { listenOption } from '../../src/cli/options.js';
import { budgetFor } from '../../src/core/budgets.js';
import { STAGES } from '../../src/core/vocabulary.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';
import { metricsText } from '../../src/status/metrics-text.js';
import { repoRoot } from '../helpers/run-main.js';
import { statusModel } from '../helpers/status-model.js';
import { nodeOnPath, pathWithoutNode } from '../helpers/no-node-path.js';
import { SHAPES, strictProblems } from './kubernetes-yaml.js';
import { readSpinupImage } from './spinup-image.js';

// examples/kubernetes/ checked offline: it parses, every field is one Kubernetes knows (a typo is
// silently dropped by the API server), and the numbers agree with spinup: the startup probe's budget
// covers the pack's stage budgets, ports and names line up, and the alerts use metrics spinup exports.
const dir = join(repoRoot, 'examples/kubernetes');
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function load(file: string): Doc[] {
  const docs = parseAllDocuments(readFileSync(join(dir, file), 'utf8'));
  for (const doc of docs) expect(doc.errors, `${file} parses`).toEqual([]);
  return docs.map((d) => d.toJS() as Doc);
}

const deployments = ['vllm-deployment.yaml', 'sglang-deployment.yaml'];
const sidecars = ['vllm-sidecar.yaml', 'sglang-sidecar.yaml'];
// The servers' own images, as their projects publish them: the examples add nothing to them.
const STOCK_IMAGES = { vllm: 'vllm/vllm-openai', sglang: 'lmsysorg/sglang' } as const;
const image = readSpinupImage(repoRoot);
// Where the image's entrypoint puts the executable, and so where the server container runs it from.
const EXECUTABLE = image.entrypoint.at(-1)!;

/** The pack's stall budget of every stage it can enter, in a row: the longest start spinup lets go on without a STALLED verdict. */
function packBudgetSeconds(family: string): number {
  const pack = loadPack(family);
  const stages = new Set(pack.markers.map((m) => m.stage));
  return STAGES.filter((s) => stages.has(s) && s !== 'ready').reduce((sum, s) => sum + budgetFor(pack, s, {}).ms / 1000, 0);
}

/** The init container that copies spinup in: the image's entrypoint, its target dir an emptyDir the server container mounts too. */
function expectCopiedIn(podSpec: Doc, copier: Doc, users: Doc[]): void {
  expect(copier.image).toMatch(/\/spinup:\d+\.\d+\.\d+$/);
  expect(copier.command, 'the copier runs the image entrypoint').toBeUndefined();
  const mount = (copier.volumeMounts as Doc[]).find((m) => m.mountPath === dirname(EXECUTABLE));
  expect(mount, `the copier mounts a volume at ${dirname(EXECUTABLE)}`).toBeDefined();
  expect((podSpec.volumes as Doc[]).find((v) => v.name === mount!.name)).toEqual({ name: mount!.name, emptyDir: {} });
  for (const user of users) {
    expect(user.command[0]).toBe(EXECUTABLE);
    expect(user.volumeMounts).toContainEqual({ name: mount!.name, mountPath: dirname(EXECUTABLE), readOnly: true });
  }
}

describe('examples/kubernetes', () => {
  it.for([...deployments, ...sidecars, 'podmonitor.yaml', 'prometheusrule.yaml'])('%s uses only known fields', (file) => {
    for (const doc of load(file)) {
      const shape = SHAPES[doc.kind];
      expect(shape, `a shape for kind ${doc.kind}`).toBeDefined();
      expect(strictProblems(doc, shape!)).toEqual([]);
    }
  });

  it('the strict walk catches a misspelt probe field that Kubernetes would drop', () => {
    const doc = load('vllm-deployment.yaml')[0]!;
    const probe = doc.spec.template.spec.containers[0].startupProbe;
    probe.failureThreshhold = probe.failureThreshold;
    delete probe.failureThreshold;
    expect(strictProblems(doc, SHAPES.Deployment!)).toEqual([expect.stringMatching(/^spec\.template\.spec\.containers\[0\]\.startupProbe\.failureThreshhold: unknown key "failureThreshhold"/)]);
  });

  it.for(deployments)('%s: spinup run --listen, the startup budget covers the pack, ports and names match', (file) => {
    const [deployment] = load(file);
    const spec = deployment!.spec;
    expect(spec.selector.matchLabels).toEqual(Object.fromEntries(Object.entries(spec.template.metadata.labels).filter(([k]) => k in spec.selector.matchLabels)));
    const container = spec.template.spec.containers[0];
    const [program, command, ...rest] = container.command as string[];
    expect([program, command]).toEqual([EXECUTABLE, 'run']);
    expect(container.image).toMatch(new RegExp(`^${STOCK_IMAGES[file.split('-')[0] as keyof typeof STOCK_IMAGES]}:`));
    expect(spec.template.spec.initContainers).toHaveLength(1);
    expectCopiedIn(spec.template.spec, spec.template.spec.initContainers[0], [container]);
    const parsed = parseRunArgs(rest);
    if (parsed.kind !== 'run') throw new Error(`the container command is not a valid spinup run: ${JSON.stringify(parsed)}`);
    const { options } = parsed;
    expect(options.listen).toMatchObject({ host: '0.0.0.0' });
    const family = familyFromCommand({ command: options.command, args: options.args, packs: FAMILIES.map((f) => loadPack(f)) });
    expect(family).toBe(file.split('-')[0]);
    const packBudgetS = packBudgetSeconds(family!);
    expect(packBudgetS).toBeGreaterThan(3600);
    const startup = container.startupProbe;
    expect(startup.failureThreshold * startup.periodSeconds).toBeGreaterThanOrEqual(packBudgetS);
    const ports = Object.fromEntries((container.ports as { name: string; containerPort: number }[]).map((p) => [p.name, p.containerPort]));
    expect(ports.spinup).toBe(options.listen!.port);
    expect(new URL(options.health!).port).toBe(String(ports.http));
    for (const [kind, path] of [['startupProbe', '/startupz'], ['readinessProbe', '/readyz'], ['livenessProbe', '/livez']] as const) {
      expect(container[kind].httpGet).toEqual({ path, port: 'spinup' });
    }
    const [monitor] = load('podmonitor.yaml');
    for (const [key, value] of Object.entries(monitor!.spec.selector.matchLabels)) expect(spec.template.metadata.labels[key]).toBe(value);
    expect(monitor!.spec.podMetricsEndpoints[0]).toMatchObject({ port: 'spinup', path: '/metrics' });
  });

  it.for(sidecars)('%s: the stock server image writes its log to a shared file; a spinup watch --listen sidecar follows it and answers the probes', (file) => {
    const [deployment] = load(file);
    const podSpec = deployment!.spec.template.spec;
    const family = file.split('-')[0] as keyof typeof STOCK_IMAGES;
    const [copier, sidecar, ...more] = podSpec.initContainers as Doc[];
    expect(more).toEqual([]);
    expectCopiedIn(podSpec, copier!, [sidecar!]);
    // A native sidecar: it starts before the server and keeps running beside it.
    expect(sidecar!.restartPolicy).toBe('Always');
    const [, command, ...rest] = sidecar!.command as string[];
    expect(command).toBe('watch');
    expect(rest.slice(0, 2)[0]).toBe('--listen');
    const listen = listenOption(rest[1])!;
    expect(listen).toMatchObject({ host: '0.0.0.0' });
    expect(sidecar!.ports).toEqual([{ name: 'spinup', containerPort: listen.port }]);
    const logFile = rest.at(-1)!;
    expect(rest).toHaveLength(3);

    const [server] = podSpec.containers as Doc[];
    expect(server!.image).toMatch(new RegExp(`^${STOCK_IMAGES[family]}:`));
    expect(server!.image).toBe(sidecar!.image);
    // The server's output reaches the file the sidecar follows, on a volume both mount at one path.
    const script = (server!.args as string[]).join(' ');
    expect(script).toMatch(/^set -o pipefail; /);
    expect(script).toContain(`2>&1 | tee -a ${logFile}`);
    const shared = (server!.volumeMounts as Doc[]).find((m) => m.mountPath === dirname(logFile));
    expect(shared, `the server mounts ${dirname(logFile)}`).toBeDefined();
    expect(sidecar!.volumeMounts).toContainEqual({ name: shared!.name, mountPath: dirname(logFile), readOnly: true });
    expect((podSpec.volumes as Doc[]).find((v) => v.name === shared!.name)).toEqual({ name: shared!.name, emptyDir: {} });
    // The server command in the script is one spinup recognises as this family's.
    const serverArgv = script.replace(/^set -o pipefail; /, '').replace(/ 2>&1 \| tee .*$/, '').split(' ');
    expect(familyFromCommand({ command: serverArgv[0]!, args: serverArgv.slice(1), packs: FAMILIES.map((f) => loadPack(f)) })).toBe(family);

    // The probes are the sidecar's, by port number (a named port would have to be the server container's own).
    expect(server!.startupProbe.httpGet).toEqual({ path: '/startupz', port: listen.port });
    expect(server!.readinessProbe.httpGet).toEqual({ path: '/readyz', port: listen.port });
    expect(server!.startupProbe.failureThreshold * server!.startupProbe.periodSeconds).toBeGreaterThanOrEqual(packBudgetSeconds(family));
    const [monitor] = load('podmonitor.yaml');
    for (const [key, value] of Object.entries(monitor!.spec.selector.matchLabels)) expect(deployment!.spec.template.metadata.labels[key]).toBe(value);
  });

  it('image/Dockerfile: a pinned small base, one file (the executable npm run sea writes), an entrypoint that copies it', () => {
    expect(image.instructions).toEqual(['FROM', 'COPY', 'ENTRYPOINT']);
    expect(image.base).toMatch(/^busybox:\d+\.\d+\.\d+$/);
    expect(image.copies).toEqual([['dist/spinup-linux-x64', '/spinup']]);
    expect(image.entrypoint).toEqual(['/bin/cp', '/spinup', EXECUTABLE]);
    const ignore = readFileSync(join(dir, 'image/Dockerfile.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    expect(ignore).toEqual(['*', '!dist/spinup-linux-x64']);
  });

  it('image/Dockerfile: its entrypoint, run in a scratch root, leaves an executable that runs with no node on PATH', () => {
    const built = join(repoRoot, image.copies[0]![0]);
    expect(existsSync(built), `${built} is missing: run npm run sea (npm test runs it)`).toBe(true);
    const root = mkdtempSync(join(tmpdir(), 'spinup-image-'));
    try {
      const inRoot = (path: string) => join(root, path);
      copyFileSync(built, inRoot(image.copies[0]![1]));
      mkdirSync(inRoot(dirname(EXECUTABLE)), { recursive: true });
      const [program, ...args] = image.entrypoint;
      expect(spawnSync(program!.replace(/^\/bin\//, ''), args.map(inRoot)).status).toBe(0);
      const PATH = pathWithoutNode(root);
      expect(nodeOnPath(PATH)).toBe('');
      const version = spawnSync(inRoot(EXECUTABLE), ['--version'], { env: { PATH, XDG_CACHE_HOME: inRoot('cache'), XDG_STATE_HOME: inRoot('state') }, encoding: 'utf8' });
      expect(version.stdout).toMatch(/^spinup \d+\.\d+\.\d+\n$/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the alerts use only metrics and labels spinup exports', () => {
    const [rule] = load('prometheusrule.yaml');
    const { model, feed } = statusModel();
    feed(readFileSync(join(repoRoot, 'fixtures/sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log'), 'utf8').split('\n'));
    const exported = new Set([...metricsText(model.snapshot()).matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    const rules = rule!.spec.groups.flatMap((g: Doc) => g.rules) as Doc[];
    expect(rules.filter((r) => r.alert).map((r) => r.alert)).toEqual(['SpinupStartFailed', 'SpinupStartStalled', 'SpinupStartMuchSlowerThanUsual']);
    // A histogram's series are its name with _bucket, _sum or _count.
    const family = (name: string): string => name.replace(/_(bucket|sum|count)$/, '');
    for (const r of rules) {
      for (const name of r.expr.match(/\bspinup_[a-z_]+/g) ?? []) expect(exported, `${r.alert ?? r.record} uses ${name}`).toContain(exported.has(name) ? name : family(name));
    }
    expect(rules.filter((r) => r.record).length, 'recording rules for what the fleet learned').toBeGreaterThan(0);
  });
});
