import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricsText } from '../../src/status/metrics-text.js';
import { statusLineText, verdictLineText } from '../../src/status/status-text.js';
import { fixtureLines, statusModel } from '../helpers/status-model.js';

const READY = 'sglang/09-tp4-l4-qwq32b-ready-health-polls.log';

describe('StatusModel', () => {
  it('follows a ready start: pending with stage, progress and budget, then ready with the stage durations', () => {
    const { model, feed } = statusModel();
    const lines = fixtureLines(READY);
    expect(model.snapshot()).toMatchObject({ schema: 'spinup.status/v1', verdict: 'pending', stage: 'none', family: null, pid: 4242, host: 'test-host' });
    feed(lines.slice(0, 40));
    const loading = model.snapshot();
    expect(loading).toMatchObject({ verdict: 'pending', stage: 'load_weights', family: 'sglang', model: '/home/user/Qwen/QwQ-32B', log: '/var/log/server.log' });
    expect(loading.budget).toMatchObject({ source: 'pack' });
    expect(loading.elapsed_ms).toBeGreaterThan(0);
    expect(model.started).toBe(false);
    feed(lines.slice(40));
    const ready = model.snapshot();
    expect(ready).toMatchObject({ verdict: 'ready', stage: 'ready', elapsed_ms: 29_000, cause: null, root_cause: [] });
    expect(ready.stages.map((s) => s.stage)).toEqual(['launch', 'distributed_init', 'load_weights', 'kv_cache', 'cuda_graph', 'http_server', 'warmup']);
    expect(ready.stages.reduce((sum, s) => sum + s.duration_ms, 0)).toBe(ready.elapsed_ms);
    expect(model.started && model.ready).toBe(true);
    expect(verdictLineText(ready)).toBe('ready /home/user/Qwen/QwQ-32B after 29s');
  });

  it('gives a failure its cause, rule, root-cause line and hint; the probes say no', () => {
    const { model, feed, end } = statusModel();
    feed(fixtureLines('sglang/01-rocm-glm5-unsupported-arch.log'));
    end();
    const failed = model.snapshot();
    expect(failed.verdict).toBe('failed');
    expect(failed.cause).toBeTruthy();
    expect(failed.rule).toBeTruthy();
    expect(failed.root_cause.length).toBeGreaterThan(0);
    expect(model.started || model.ready).toBe(false);
    expect(metricsText(failed)).toContain(`spinup_start_failure_info{family="sglang",model="${failed.model ?? 'unknown'}",cause="${failed.cause}",rule="${failed.rule}"} 1`);
  });

  it('numbers its events for /v1/events, the JSON of --json', () => {
    const { model, feed } = statusModel();
    feed(fixtureLines(READY));
    const events = model.log.since(0);
    expect(events[0]).toMatchObject({ id: 1, type: 'family' });
    expect(events.at(-1)).toMatchObject({ type: 'verdict' });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: 'verdict', verdict: 'ready' });
    expect(model.snapshot().last_event_id).toBe(events.length);
  });

  it('in run mode the session verdict is not the verdict: the run decides and publishes it', () => {
    const { model, feed, session } = statusModel({ command: 'run' });
    feed(fixtureLines(READY));
    expect(model.snapshot().verdict).toBe('pending');
    expect(model.log.since(0).some((e) => e.type === 'verdict')).toBe(false);
    model.verdict(session.verdict!);
    expect(model.snapshot().verdict).toBe('ready');
    expect(model.log.since(0).at(-1)?.type).toBe('verdict');
  });
});

describe('metricsText', () => {
  it('writes one 0/1 series per verdict and stage, family and model on every series', () => {
    const { model, feed } = statusModel();
    feed(fixtureLines(READY).slice(0, 40));
    const text = metricsText(model.snapshot());
    const samples = text.split('\n').filter((l) => l && !l.startsWith('#'));
    for (const sample of samples) expect(sample).toMatch(/^spinup_[a-z_]+\{family="sglang",model="\/home\/user\/Qwen\/QwQ-32B"[^}]*\} -?[\d.e+]+$/);
    expect(samples.filter((s) => s.startsWith('spinup_start_verdict{')).map((s) => s.endsWith(' 1'))).toEqual([true, false, false, false, false]);
    expect(samples.filter((s) => s.startsWith('spinup_start_stage{') && s.endsWith(' 1'))).toEqual([expect.stringContaining('stage="load_weights"')]);
    expect(text).toContain('# TYPE spinup_log_lines_total counter');
    expect(text).not.toContain('spinup_start_failure_info');
  });

  it('escapes label values', () => {
    const { model } = statusModel();
    const snapshot = { ...model.snapshot(), model: 'a"b\\c\nd' };
    expect(metricsText(snapshot)).toContain('model="a\\"b\\\\c\\nd"');
  });

  it('the status line reads like watch\'s', () => {
    const { model, feed } = statusModel();
    feed(fixtureLines(READY).slice(0, 40));
    expect(statusLineText(model.snapshot())).toMatch(/^load_weights \d+s.* · total \d+s$/);
  });
});

describe('the status room is pure', () => {
  const dir = join(import.meta.dirname, '../../src/status');
  it.for(readdirSync(dir).filter((f) => f.endsWith('.ts')))('%s imports nothing from node: and reads no clock', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    expect(text).not.toMatch(/from ['"]node:|require\(/);
    expect(text).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(/);
  });
});
