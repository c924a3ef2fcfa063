import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { familyFromCommand } from '../../src/cli/run/family.js';
import { parseRunArgs } from '../../src/cli/run/options.js';
import { budgetFor } from '../../src/core/budgets.js';
import { STAGES } from '../../src/core/vocabulary.js';
import { FAMILIES, loadPack } from '../../src/pack/load-pack.js';
import { metricsText } from '../../src/status/metrics-text.js';
import { repoRoot } from '../helpers/run-main.js';
import { statusModel } from '../helpers/status-model.js';
import { SHAPES, strictProblems } from './kubernetes-yaml.js';

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

describe('examples/kubernetes', () => {
  it.for([...deployments, 'podmonitor.yaml', 'prometheusrule.yaml'])('%s uses only known fields', (file) => {
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
    expect([program, command]).toEqual(['spinup', 'run']);
    const parsed = parseRunArgs(rest);
    if (parsed.kind !== 'run') throw new Error(`the container command is not a valid spinup run: ${JSON.stringify(parsed)}`);
    const { options } = parsed;
    expect(options.listen).toMatchObject({ host: '0.0.0.0' });
    const family = familyFromCommand({ command: options.command, args: options.args, packs: FAMILIES.map((f) => loadPack(f)) });
    expect(family).toBe(file.split('-')[0]);
    const pack = loadPack(family!);
    // The stall budget of every stage the pack can enter, in a row: the longest start spinup lets go on
    // without a STALLED verdict (each stage silent for just under its budget).
    const stages = new Set(pack.markers.map((m) => m.stage));
    const packBudgetS = STAGES.filter((s) => stages.has(s) && s !== 'ready').reduce((sum, s) => sum + budgetFor(pack, s, {}).ms / 1000, 0);
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
