/** The classifier's own rules of time and evidence, on a tiny pack written inline. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Classifier } from '../../src/core/classifier.js';
import { compilePack } from '../../src/core/compile-pack.js';
import type { ClassifierEvent } from '../../src/core/events.js';
import type { PackSource } from '../../src/core/pack-types.js';
import { bestCandidate, fillTemplate, type Candidate } from '../../src/core/root-cause.js';

const source: PackSource = {
  pack: 'toy',
  description: 'a toy pack',
  timing: { default_budget: '10m', settle: '5s' },
  prefixes: [{ id: 'toy/ts', pattern: '^\\[(?<time>\\d\\d:\\d\\d:\\d\\d)\\] ', description: 'time', logger: true }],
  stages: [
    { stage: 'launch', markers: [{ id: 'toy/start', pattern: 'starting', description: 'start', restart: true }] },
    { stage: 'load_weights', budget: '1m', markers: [{ id: 'toy/load', pattern: 'loading', description: 'load', reenter_from: 'cuda_graph' }] },
    { stage: 'cuda_graph', markers: [{ id: 'toy/graph', pattern: 'capturing', description: 'graph' }] },
  ],
  progress: [{ id: 'toy/bar', stage: 'load_weights', pattern: 'shard (?<current>\\d+)/(?<total>\\d+)', description: 'bar', unit: 'shards' }],
  ready: [
    { id: 'toy/ready', pattern: 'READY NOW', description: 'ready' },
    { id: 'toy/held', pattern: 'MAYBE READY', description: 'held', hold: '2s', confirm: ['CONFIRMED'] },
  ],
  heartbeats: [{ id: 'toy/wait', pattern: 'still waiting', description: 'wait', stall_after: 3 }],
  benign: [{ id: 'toy/benign', pattern: 'harmless boom', description: 'benign' }],
  failures: [
    { id: 'toy/oom', pattern: 'out of memory (?<what>\\w+)', description: 'oom', cause: 'gpu_oom', message: 'OOM in {{what}}', hint: 'smaller' },
    { id: 'toy/wrapper', pattern: 'child died', description: 'wrapper', cause: 'crash', role: 'symptom', final: true, message: 'died', hint: 'see above' },
    { id: 'toy/exit9', pattern: 'exit -9', description: 'kill', cause: 'host_oom', role: 'symptom', message: 'killed', hint: 'ram' },
    { id: 'toy/suspect', pattern: 'driver warning', description: 'suspect', cause: 'unsupported_gpu', fatal: false, message: 'old driver', hint: 'upgrade' },
    { id: 'toy/boom', pattern: 'boom', description: 'boom', cause: 'crash', message: 'boom', hint: 'x' },
  ],
};
const pack = compilePack([source]);

/** Feeds `[seconds, text]` pairs at their times; returns all events. */
function feed(classifier: Classifier, lines: [number, string][]): ClassifierEvent[] {
  return lines.flatMap(([s, text], i) => classifier.feed(text, s * 1000, i + 1));
}

const verdictOf = (events: ClassifierEvent[]) => events.find((e) => e.type === 'verdict')?.verdict;

describe('Classifier', () => {
  it('enters stages in the pack order and reports them', () => {
    const c = new Classifier(pack);
    const events = feed(c, [[0, 'starting'], [1, 'loading'], [2, 'capturing']]);
    expect(events.filter((e) => e.type === 'stage').map((e) => (e.type === 'stage' ? e.stage : ''))).toEqual(['launch', 'load_weights', 'cuda_graph']);
  });

  it('does not go back a stage for a straggler, but re-enters where the pack allows', () => {
    const c = new Classifier(pack);
    feed(c, [[0, 'starting'], [1, 'loading'], [2, 'capturing'], [3, 'loading']]);
    expect(c.state.stage).toBe('load_weights');
    const d = new Classifier(compilePack([{ ...source, stages: source.stages!.map((s) => ({ ...s, markers: s.markers.map((m) => ({ ...m, reenter_from: undefined })) })) }]));
    feed(d, [[0, 'starting'], [1, 'loading'], [2, 'capturing'], [3, 'loading']]);
    expect(d.state.stage).toBe('cuda_graph');
  });

  it('calls a stall at the moment the stage budget ran out, not when it noticed', () => {
    const c = new Classifier(pack);
    feed(c, [[0, 'starting'], [10, 'loading']]);
    expect(c.tick(69_000)).toEqual([]);
    const verdict = verdictOf(c.tick(500_000));
    expect(verdict).toMatchObject({ verdict: 'stalled', stage: 'load_weights', at: 70_000, silentMs: 60_000 });
    expect(verdict?.budget).toMatchObject({ ms: 60_000, source: 'pack' });
  });

  it('counts a moving bar as progress and a repeated bar as silence', () => {
    const c = new Classifier(pack);
    feed(c, [[0, 'loading'], [50, 'shard 1/9'], [100, 'shard 2/9']]);
    expect(c.tick(150_000)).toEqual([]);
    const d = new Classifier(pack);
    feed(d, [[0, 'loading'], [50, 'shard 1/9'], [100, 'shard 1/9']]);
    expect(d.tick(105_000)).toEqual([]);
    expect(verdictOf(d.tick(111_000))).toMatchObject({ verdict: 'stalled', at: 110_000 });
  });

  it('--stall overrides every budget', () => {
    const c = new Classifier(pack, { stallOverrideMs: 5000 });
    feed(c, [[0, 'loading']]);
    expect(verdictOf(c.tick(6000))?.budget).toMatchObject({ ms: 5000, source: 'override' });
  });

  it('learned budgets apply to their stage and say so', () => {
    const c = new Classifier(pack, { learned: { load_weights: { ms: 20_000, source: 'learned', detail: 'learned from 3 starts' } } });
    feed(c, [[0, 'loading']]);
    expect(verdictOf(c.tick(21_000))?.budget?.detail).toBe('learned from 3 starts');
  });

  it('stalls at once when the server repeats its own hang report', () => {
    const c = new Classifier(pack);
    const events = feed(c, [[0, 'loading'], [1, 'still waiting'], [2, 'still waiting'], [3, 'still waiting']]);
    expect(verdictOf(events)).toMatchObject({ verdict: 'stalled', budget: { source: 'server' } });
  });

  it('heartbeats do not reset the silence clock', () => {
    const c = new Classifier(pack);
    feed(c, [[0, 'loading'], [30, 'still waiting'], [59, 'still waiting']]);
    expect(verdictOf(c.tick(61_000))?.verdict).toBe('stalled');
  });

  it('decides at once on a fatal line that names its cause, with the message filled in', () => {
    const c = new Classifier(pack);
    const verdict = verdictOf(feed(c, [[0, 'loading'], [1, 'out of memory allocator']]));
    expect(verdict).toMatchObject({ verdict: 'failed', cause: 'gpu_oom', message: 'OOM in allocator', rule: 'toy/oom' });
  });

  it('waits after a wrapper for the cause, then settles on the best candidate', () => {
    const c = new Classifier(pack);
    expect(verdictOf(feed(c, [[0, 'loading'], [1, 'child died']]))).toBeUndefined();
    expect(verdictOf(feed(c, [[1, 'exit -9']]))).toBeUndefined();
    expect(verdictOf(c.tick(4500))).toMatchObject({ cause: 'host_oom', evidence: [{ text: 'exit -9' }] });
  });

  it('a warning that explains a later death is the root cause', () => {
    const c = new Classifier(pack);
    feed(c, [[0, 'driver warning'], [1, 'child died']]);
    expect(verdictOf(c.end(2000))).toMatchObject({ cause: 'unsupported_gpu', evidence: [{ text: 'driver warning' }] });
  });

  it('benign lines never fail a start', () => {
    const c = new Classifier(pack);
    const events = feed(c, [[0, 'harmless boom'], [1, 'READY NOW']]);
    expect(verdictOf(events)?.verdict).toBe('ready');
  });

  it('holds a ready that can be retracted, confirms it by time or by a line', () => {
    const retracted = new Classifier(pack);
    expect(verdictOf(feed(retracted, [[0, 'MAYBE READY'], [0, 'out of memory x']]))?.verdict).toBe('failed');
    const byTime = new Classifier(pack);
    feed(byTime, [[0, 'MAYBE READY']]);
    expect(byTime.tick(1000)).toEqual([]);
    expect(verdictOf(byTime.tick(2000))?.verdict).toBe('ready');
    const byLine = new Classifier(pack);
    expect(verdictOf(feed(byLine, [[0, 'MAYBE READY'], [0, 'CONFIRMED']]))?.verdict).toBe('ready');
  });

  it('an uncaught exception fails the start only if nothing carries on after it', () => {
    const lines: [number, string][] = [[0, 'loading'], [1, 'Traceback (most recent call last):'], [1, '  File "/x.py", line 1'], [1, 'KeyError: 7']];
    const dead = new Classifier(pack);
    feed(dead, lines);
    expect(verdictOf(dead.end(2000))).toMatchObject({ verdict: 'failed', cause: 'crash', rule: 'core/uncaught-exception' });
    const alive = new Classifier(pack);
    feed(alive, [...lines, [2, 'capturing']]);
    expect(verdictOf(alive.end(3000))?.verdict).toBe('incomplete');
  });

  it('a new run resets everything, so an old ready line is never taken', () => {
    const c = new Classifier(pack);
    const events = feed(c, [[0, 'starting'], [1, 'loading'], [2, 'READY NOW'], [10, 'starting'], [11, 'loading']]);
    expect(events.some((e) => e.type === 'restart')).toBe(true);
    expect(c.verdict).toBeUndefined();
    expect(verdictOf(c.end(12_000))?.verdict).toBe('incomplete');
  });

  it('reports a crash after ready as its own event, not as the startup verdict', () => {
    const c = new Classifier(pack);
    const events = feed(c, [[0, 'READY NOW'], [5, 'out of memory later']]);
    expect(events.map((e) => e.type)).toEqual(['verdict', 'after-ready-failure']);
    expect(c.verdict?.verdict).toBe('ready');
  });
});

describe('Classifier.quietText: whether a line with a literal changes no more than a quiet line', () => {
  const ready = (): Classifier => {
    const c = new Classifier(pack);
    feed(c, [[0, 'starting'], [1, 'READY NOW']]);
    expect(c.verdict?.verdict).toBe('ready');
    return c;
  };
  const failed = (): Classifier => {
    const c = new Classifier(pack);
    feed(c, [[0, 'starting'], [1, 'boom']]);
    c.tick(60_000);
    expect(c.verdict?.verdict).toBe('failed');
    return c;
  };

  it.for<[string, string, boolean]>([
    ['a fatal failure', 'out of memory here', false],
    ['a fatal failure in the second frame of a line', 'shard 1/2\rout of memory here', false],
    ['a fatal failure behind colour codes', '\x1b[31mbo\x1b[0mom', false],
    ['a restart', 'starting', false],
    ['a failure that is not fatal', 'driver warning', true],
    ['a fatal failure set aside by a benign rule', 'harmless boom', true],
    ['a stage marker, a bar, a ready line, a heartbeat', 'loading\rshard 1/2\rREADY NOW\rstill waiting', true],
  ])('after ready: %s', ([, text, quiet]) => {
    expect(ready().quietText(text)).toBe(quiet);
  });

  it.for<[string, string, boolean]>([
    ['a fatal failure', 'out of memory here', true],
    ['a restart', 'starting', false],
    ['a restart in the last frame, behind a colour code', 'boom\r\x1b[1mstart\x1b[0ming', false],
    ['a ready line', 'READY NOW', true],
  ])('after a failed verdict: %s', ([, text, quiet]) => {
    expect(failed().quietText(text)).toBe(quiet);
  });

  it('before a verdict, any rule but a benign one acts (a failure that is not fatal too)', () => {
    const c = new Classifier(pack);
    feed(c, [[0, 'starting']]);
    expect(c.quietText('driver warning')).toBe(false);
    expect(c.quietText('harmless boom')).toBe(true);
  });
});

describe('root-cause ranking', () => {
  const candidate = (tier: Candidate['tier'], seq: number, superseded = false): Candidate => ({ tier, seq, superseded, cause: 'crash', ruleId: `r${seq}`, message: '', hint: '', evidence: [] });
  it.for([
    { name: 'lower tier wins', list: [candidate(3, 0), candidate(0, 1)], best: 'r1' },
    { name: 'earlier wins within a tier', list: [candidate(0, 5), candidate(0, 2)], best: 'r2' },
    { name: 'superseded loses', list: [candidate(0, 0, true), candidate(3, 1)], best: 'r1' },
  ])('$name', ({ list, best }) => {
    expect(bestCandidate(list)?.ruleId).toBe(best);
  });

  it('fills message placeholders from named groups', () => {
    expect(fillTemplate('native crash: {{signal}} in {{ where }}', { signal: 'Bus error' })).toBe('native crash: Bus error in');
  });
});

describe('the core is pure', () => {
  const dir = join(import.meta.dirname, '../../src/core');
  it.for(readdirSync(dir).filter((f) => f.endsWith('.ts')))('%s imports nothing from node: and reads no clock', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    expect(text).not.toMatch(/from ['"]node:|require\(/);
    expect(text).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now\(/);
  });
});

describe('Session family detection', () => {
  const family = (name: string, detect: { id: string; pattern: string; description: string; clue?: boolean }[]) =>
    compilePack([{ ...source, pack: name, include: ['shared'], detect }, { pack: 'shared', description: 'shared', failures: [source.failures![0]!] }]);
  const alpha = family('alpha', [
    { id: 'alpha/banner', pattern: 'ALPHA SERVER', description: 'banner' },
    { id: 'alpha/format', pattern: '^alpha: ', description: 'format', clue: true },
    { id: 'alpha/path', pattern: '/alpha/', description: 'path', clue: true },
  ]);
  const beta = family('beta', [{ id: 'beta/format', pattern: '^beta: ', description: 'format', clue: true }]);

  it('13.7: with clues but no decision it classifies with the shared rules only, after a while', async () => {
    const { Session, DETECT_WAIT_MS } = await import('../../src/core/session.js');
    const session = new Session({ packs: [alpha, beta] });
    expect(session.push('alpha: some line', { wall: 1000 })).toEqual([]);
    expect(session.tick({ wall: 1000 + DETECT_WAIT_MS - 1 })).toEqual([]);
    const events = session.tick({ wall: 1000 + DETECT_WAIT_MS });
    expect(events[0]).toMatchObject({ type: 'family', family: 'shared', certain: false });
    expect(session.pack).toMatchObject({ name: 'shared', isShared: true });
    const verdict = [...session.push('out of memory weights'), ...session.end()].find((event) => event.type === 'verdict');
    expect(verdict).toMatchObject({ type: 'verdict', verdict: { verdict: 'failed', rule: 'toy/oom', familyUnknown: 'undecided' } });
  });

  it('13.7: two distinct clues of one family, none of another, decide it', async () => {
    const { Session } = await import('../../src/core/session.js');
    const session = new Session({ packs: [alpha, beta] });
    expect(session.push('alpha: first')).toEqual([]);
    expect(session.push('alpha: second')).toEqual([]); // the same clue again is no new evidence
    expect(session.push('File "/x/alpha/y.py", line 1')[0]).toMatchObject({ type: 'family', family: 'alpha', certain: true });
    const mixed = new Session({ packs: [alpha, beta] });
    // Two of alpha's against one of beta's: not enough to tell.
    for (const line of ['beta: b', 'alpha: a', 'File "/x/alpha/y.py"']) expect(mixed.push(line)).toEqual([]);
  });

  it('13.8: with no sign of any family it waits, then says there is no verdict', async () => {
    const { Session, DETECT_WAIT_MS } = await import('../../src/core/session.js');
    const session = new Session({ packs: [alpha, beta] });
    expect(session.push('out of memory heap', { wall: 1000 })).toEqual([]);
    expect(session.tick({ wall: 1000 + 10 * DETECT_WAIT_MS })).toEqual([]);
    expect(session.end()).toMatchObject([{ type: 'verdict', verdict: { verdict: 'incomplete', familyUnknown: 'no-evidence', linesRead: 1, lastLine: { lineNo: 1, text: 'out of memory heap' } } }]);
    // A server that starts after another program's lines is still read, from its first sign on.
    const late = new Session({ packs: [alpha, beta] });
    for (let i = 0; i < 1000; i++) late.push(`noise ${i}`);
    expect(late.push('ALPHA SERVER starting')[0]).toMatchObject({ type: 'family', family: 'alpha', certain: true });
  });
});
