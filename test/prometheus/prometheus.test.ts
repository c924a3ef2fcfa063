import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { apiGet } from '../../src/serve/api-client.js';
import { metricsText } from '../../src/status/metrics-text.js';
import { DURATION_BUCKETS_S } from '../../src/status/startup-histograms.js';
import { PidTracker } from '../io/pid-tracker.js';
import { missingToolMessage, requireTool } from '../helpers/outside-tool.js';
import { repoRoot } from '../helpers/run-main.js';
import { spinup, until } from '../helpers/spinup-process.js';
import { fixtureLines, statusModel } from '../helpers/status-model.js';

// The real tools (Debian's prometheus package, fetched by scripts/tools/prometheus.sh): promtool
// lints spinup's /metrics and runs unit tests of the shipped alerts; a real Prometheus scrapes a
// spinup run on loopback and answers, in PromQL, that the start is ready.
const PROMTOOL = 'prometheus/usr/bin/promtool';
const PROMETHEUS = 'prometheus/usr/bin/prometheus';
const promtool = requireTool(PROMTOOL);
const prometheus = requireTool(PROMETHEUS);
const READY_LOG = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
const REPLAY = join(repoRoot, 'test/fixture-servers/replay-log.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'spinup-prometheus-'));
const tracker = new PidTracker();

afterEach(async () => {
  expect(await tracker.sweep(), 'processes that outlived the test').toEqual([]);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tool(check: { path: string | undefined }, relative: string): string {
  if (check.path === undefined) throw new Error(missingToolMessage(relative));
  return check.path;
}

function runTool(path: string, args: string[], input?: string): { code: number | null; out: string } {
  const result = spawnSync(path, args, { input, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

function startSpinup(name: string): ReturnType<typeof spinup> {
  const run = spinup(['run', '--quiet', '--no-state', '--log', join(scratch, `${name}.log`), '--listen', '127.0.0.1:0', '--', process.execPath, REPLAY, '--log', READY_LOG, '--speed', '10', '--max-gap-ms', '300', '--then', 'hang'], {});
  tracker.track(run.pid);
  return run;
}

describe.skipIf(promtool.skip)('promtool', () => {
  it('check metrics passes on /metrics of a live run, starting and ready, and on a failed start', async () => {
    const path = tool(promtool, PROMTOOL);
    const run = startSpinup('check-metrics');
    const url = (await run.waitFor(/status API on (http:\/\/[\d.:]+)/))[1]!;
    const texts: string[] = [];
    await until('a ready scrape', async () => {
      const answer = await apiGet({ url }, '/metrics', 5_000);
      texts.push(answer.body);
      return answer.body.includes('verdict="ready"} 1') ? true : undefined;
    }, 60_000);
    const { model, feed, end } = statusModel();
    feed(fixtureLines('sglang/23-gemma3-12b-16gb-cuda-oom-load-weight.log'));
    end();
    expect(model.snapshot().verdict).toBe('failed');
    const starting = texts.find((t) => t.includes('verdict="pending"} 1') && t.includes('spinup_stage_budget_seconds'));
    expect(starting, 'a scrape while starting').toBeDefined();
    // The durations a fleet learns from appear with the verdict, as histograms, and pass the lint too.
    expect(starting).not.toContain('spinup_startup_stage_duration_seconds');
    expect(texts.at(-1)).toContain('# TYPE spinup_startup_stage_duration_seconds histogram');
    expect(texts.at(-1)).toMatch(/spinup_startup_stage_duration_seconds_bucket\{family="sglang",model="[^"]+",stage="load_weights",verdict="ready",le="\+Inf"\} 1/);
    expect(metricsText(model.snapshot())).toContain('spinup_startup_duration_seconds_count{family="sglang",model="google/gemma-3-12b-it",verdict="failed"} 1');
    for (const text of [starting!, texts.at(-1)!, metricsText(model.snapshot())]) {
      const lint = runTool(path, ['check', 'metrics'], text);
      expect(lint.out).toBe('');
      expect(lint.code).toBe(0);
    }
    run.child.kill('SIGINT');
    expect(await run.code).toBe(130);
  }, 90_000);

  it('check metrics would catch a broken exposition (the check is real)', () => {
    const lint = runTool(tool(promtool, PROMTOOL), ['check', 'metrics'], '# TYPE spinup_lines counter\nspinup_lines{family="x"} 1\n');
    expect(lint.code).not.toBe(0);
  });

  it('test rules: the shipped alerts fire on a failed, a stalled and a slow start, and not on a normal one', () => {
    const path = tool(promtool, PROMTOOL);
    const rule = parse(readFileSync(join(repoRoot, 'examples/kubernetes/prometheusrule.yaml'), 'utf8')) as { spec: { groups: unknown[] } };
    const rules = join(scratch, 'rules.yaml');
    writeFileSync(rules, stringify({ groups: rule.spec.groups }));
    const pod = (name: string) => `namespace="llm",pod="${name}",family="vllm",model="Qwen/Qwen2.5-7B-Instruct"`;
    const verdicts = (name: string, series: Record<string, string>) =>
      ['pending', 'ready', 'failed', 'stalled', 'incomplete'].map((verdict) => ({ series: `spinup_start_verdict{${pod(name)},verdict="${verdict}"}`, values: series[verdict] ?? '0x60' }));
    const tests = {
      rule_files: [rules],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            // Two earlier pods got READY in 5 minutes and stayed up.
            ...['usual-a', 'usual-b'].flatMap((name) => [
              ...verdicts(name, { pending: '1x4 0x55', ready: '0x4 1x55' }),
              { series: `spinup_start_elapsed_seconds{${pod(name)}}`, values: '0+60x4 300x55' },
            ]),
            // This one has been pending for 15 minutes and counting: more than twice 5 minutes.
            ...verdicts('slow', { pending: '1x60' }),
            { series: `spinup_start_elapsed_seconds{${pod('slow')}}`, values: '0+60x60' },
            // One failed (seen by one scrape before its container restarted), one stalled.
            { series: `spinup_start_failure_info{${pod('failed')},cause="gpu_oom",rule="common/cuda-oom"}`, values: '_x10 1 _x49' },
            ...verdicts('stalled', { pending: '1x20 0x39', stalled: '0x20 1 _x38' }),
          ],
          alert_rule_test: [
            { eval_time: '9m', alertname: 'SpinupStartMuchSlowerThanUsual', exp_alerts: [] },
            {
              eval_time: '20m',
              alertname: 'SpinupStartMuchSlowerThanUsual',
              exp_alerts: [
                {
                  exp_labels: { severity: 'warning', namespace: 'llm', pod: 'slow', family: 'vllm', model: 'Qwen/Qwen2.5-7B-Instruct' },
                  exp_annotations: {
                    summary: 'Qwen/Qwen2.5-7B-Instruct on slow is starting much slower than usual',
                    description: 'Starting for 20m 0s, more than twice the usual time to READY; `spinup attach` or /v1/status shows the stage.',
                  },
                },
              ],
            },
            {
              eval_time: '12m',
              alertname: 'SpinupStartFailed',
              exp_alerts: [
                {
                  exp_labels: { severity: 'critical', namespace: 'llm', pod: 'failed', family: 'vllm', model: 'Qwen/Qwen2.5-7B-Instruct', cause: 'gpu_oom', rule: 'common/cuda-oom' },
                  exp_annotations: {
                    summary: 'Qwen/Qwen2.5-7B-Instruct failed to start on failed: gpu_oom',
                    description: 'spinup matched rule common/cuda-oom; `kubectl logs --previous failed` shows the verdict with its root-cause line and hint.',
                  },
                },
              ],
            },
            { eval_time: '30m', alertname: 'SpinupStartFailed', exp_alerts: [] },
            {
              eval_time: '25m',
              alertname: 'SpinupStartStalled',
              exp_alerts: [
                {
                  exp_labels: { severity: 'warning', namespace: 'llm', pod: 'stalled', family: 'vllm', model: 'Qwen/Qwen2.5-7B-Instruct', verdict: 'stalled' },
                  exp_annotations: {
                    summary: 'Qwen/Qwen2.5-7B-Instruct stalled while starting on stalled',
                    description: 'A stage went silent past its stall budget; spinup stopped the server and the container restarts.',
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    const file = join(scratch, 'rules.test.yaml');
    writeFileSync(file, stringify(tests));
    const result = runTool(path, ['test', 'rules', file]);
    expect(result.out).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });
});

describe.skipIf(promtool.skip)('promtool on the recording rules of what the fleet learned', () => {
  const rulesFile = (): string => {
    const rule = parse(readFileSync(join(repoRoot, 'examples/kubernetes/prometheusrule.yaml'), 'utf8')) as { spec: { groups: unknown[] } };
    const file = join(scratch, 'learned-rules.yaml');
    writeFileSync(file, stringify({ groups: rule.spec.groups }));
    return file;
  };

  it('check rules passes on the shipped rules, recording rules included', () => {
    const result = runTool(tool(promtool, PROMTOOL), ['check', 'rules', rulesFile()]);
    expect(result.out).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('test rules: per-model p50/p95 of a stage and of the whole start, over READY starts only', () => {
    const path = tool(promtool, PROMTOOL);
    const labels = (pod: string, extra: string) => `namespace="llm",pod="${pod}",family="sglang",model="Qwen/QwQ-32B"${extra}`;
    // One spinup per pod: its histogram holds one observation, seen by the scrapes from minute 2 on.
    const histogram = (name: string, pod: string, extra: string, seconds: number) => [
      ...[...DURATION_BUCKETS_S.map(String), '+Inf'].map((le) => ({
        series: `${name}_bucket{${labels(pod, extra)},le="${le}"}`,
        values: `_x2 ${le === '+Inf' || seconds <= Number(le) ? 1 : 0}x30`,
      })),
      { series: `${name}_count{${labels(pod, extra)}}`, values: '_x2 1x30' },
    ];
    // Three READY starts whose distributed_init took 2, 4 and 6 s (starts of 20, 40 and 60 s), and a failed one
    // stuck 1000 s in it, which must not count.
    const input_series = [
      ...[2, 4, 6].flatMap((s, i) => [
        ...histogram('spinup_startup_stage_duration_seconds', `ready-${i}`, ',stage="distributed_init",verdict="ready"', s),
        ...histogram('spinup_startup_duration_seconds', `ready-${i}`, ',verdict="ready"', s * 10),
      ]),
      ...histogram('spinup_startup_stage_duration_seconds', 'failed', ',stage="distributed_init",verdict="failed"', 1000),
    ];
    const at = (expr: string, value: number, extra = '') => ({ expr, eval_time: '20m', exp_samples: [{ labels: `${expr}{family="sglang",model="Qwen/QwQ-32B"${extra}}`, value }] });
    const stage = ',stage="distributed_init"';
    // histogram_quantile interpolates within the bucket the rank falls in, in this order of
    // operations (promtool compares the doubles exactly): e.g. p95 of 2, 4, 6 s is 5 + 5 × 0.85.
    const interpolated = (q: number, start: number, end: number, below: number, inBucket: number) => start + (end - start) * ((q * 3 - below) / inBucket);
    const tests = {
      rule_files: [rulesFile()],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series,
          promql_expr_test: [
            at('family_model_stage:spinup_startup_stage_duration_seconds:p50_14d', interpolated(0.5, 2, 5, 1, 1), stage),
            at('family_model_stage:spinup_startup_stage_duration_seconds:p95_14d', interpolated(0.95, 5, 10, 2, 1), stage),
            // Whole starts of 20, 40, 60 s: buckets ..20 (1), ..30 (1), ..45 (2), ..60 (3).
            at('family_model:spinup_startup_duration_seconds:p50_14d', interpolated(0.5, 30, 45, 1, 1)),
            at('family_model:spinup_startup_duration_seconds:p95_14d', interpolated(0.95, 45, 60, 2, 1)),
          ],
        },
      ],
    };
    const file = join(scratch, 'learned.test.yaml');
    writeFileSync(file, stringify(tests));
    const result = runTool(path, ['test', 'rules', file]);
    expect(result.out).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });
});

describe.skipIf(prometheus.skip)('a real Prometheus', () => {
  it('scrapes spinup run --listen on loopback and answers in PromQL that the start is ready', async () => {
    const path = tool(prometheus, PROMETHEUS);
    const run = startSpinup('scraped');
    const target = (await run.waitFor(/status API on http:\/\/([\d.:]+)/))[1]!;
    const port = await freePort();
    const config = join(scratch, 'prometheus.yml');
    writeFileSync(config, stringify({ global: { scrape_interval: '1s', evaluation_interval: '1s' }, scrape_configs: [{ job_name: 'spinup', static_configs: [{ targets: [target] }] }] }));
    const server = spawn(path, [`--config.file=${config}`, `--storage.tsdb.path=${join(scratch, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
    tracker.track(server.pid ?? 0);
    let log = '';
    server.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    try {
      const api = `http://127.0.0.1:${port}`;
      await until('Prometheus ready', async () => ((await apiGet({ url: api }, '/-/ready', 2_000).catch(() => undefined))?.status === 200 ? true : undefined), 60_000);
      const query = encodeURIComponent('spinup_start_verdict{job="spinup",verdict="ready"} == 1');
      const answer = await until(
        'a PromQL answer that the start is ready',
        async () => {
          const res = await apiGet({ url: api }, `/api/v1/query?query=${query}`, 5_000);
          const body = JSON.parse(res.body) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
          return body.data.result.length > 0 ? body.data.result : undefined;
        },
        90_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\nprometheus log:\n${log}`);
      });
      expect(answer).toHaveLength(1);
      expect(answer[0]!.metric).toMatchObject({ family: 'sglang', model: '/home/user/Qwen/QwQ-32B', verdict: 'ready', instance: target });
      expect(answer[0]!.value[1]).toBe('1');
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('close', resolve));
      run.child.kill('SIGINT');
      await run.code;
    }
  }, 150_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
