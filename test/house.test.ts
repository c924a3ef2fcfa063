/**
 * The house rules a reader relies on, checked on the source itself: core is pure (no `node:`
 * import, no clock read), no command imports another (shared flags live beside them in cli/),
 * the wall clock is read in one module only (everything else is handed a clock), and the
 * session is wrapped from outside (observers), never extended. And the tests keep out of the
 * user's own state: the run has a HOME and XDG_STATE_HOME of its own (test/helpers/own-home.ts).
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { defaultStateDir } from '../src/history/history-path.js';
import { spinup } from './helpers/spinup-process.js';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const CLOCK_MODULE = 'io/wall-clock.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sources(SRC).map((path) => ({ name: relative(SRC, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));

/** Module specifiers of static imports, re-exports and dynamic imports, comments left out. */
function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'([^']+)'/gm)].map((m) => m[1]!);
}

function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '').replace(/`(?:[^`\\]|\\.)*`/g, '``');
}

describe('the house', () => {
  it('has sources to check (the walk found them)', () => {
    expect(files.some((f) => f.name.startsWith('core/'))).toBe(true);
    expect(files.some((f) => f.name.startsWith('cli/commands/'))).toBe(true);
    expect(files.some((f) => f.name === CLOCK_MODULE)).toBe(true);
  });

  it.for(files.filter((f) => f.name.startsWith('core/')).map((f) => [f.name, f.text] as const))('core/ is pure: %s imports no node: module and reads no clock', ([, text]) => {
    expect(importsOf(text).filter((spec) => spec.startsWith('node:') || !spec.startsWith('.'))).toEqual([]);
    expect(codeOf(text)).not.toMatch(/\bDate\.now\s*\(|new Date\s*\(\s*\)|\bperformance\.now\s*\(|\bprocess\./);
    // Nothing above core: it must not reach up into io, pack, cli...
    expect(importsOf(text).filter((spec) => spec.startsWith('../'))).toEqual([]);
  });

  it.for(files.filter((f) => f.name.startsWith('cli/commands/')).map((f) => [f.name, f.text] as const))('%s imports no other command', ([, text]) => {
    const siblings = importsOf(text).filter((spec) => spec.startsWith('./') || spec.includes('/commands/'));
    expect(siblings).toEqual([]);
  });

  it('wraps the session from outside: nothing extends Session (history observes its events)', () => {
    const subclasses = files.filter((f) => /\bextends\s+Session\b/.test(codeOf(f.text))).map((f) => f.name);
    expect(files.some((f) => f.name === 'history/start-tracker.ts' && /implements\s+SessionObserver\b/.test(f.text))).toBe(true);
    expect(subclasses).toEqual([]);
  });

  it('has one live driver: only io/watch-loop.ts feeds and ticks a live session; watch and run both start it', () => {
    const feeders = files.filter((f) => !f.name.startsWith('core/') && !f.name.startsWith('replay/') && /\bsession\.(push|tick)\s*\(/.test(codeOf(f.text))).map((f) => f.name);
    // The after-ready watch feeds a classifier of its own, with the lines the loop gave the run's session
    // (it observes that session), and is ticked on the loop's turns. (How a run's log ended is settled by
    // its exit decider: the loop leaves that to it, settleAtEnd false.)
    expect(feeders).toEqual(['io/supervise/after-ready.ts', 'io/watch-loop.ts']);
    const startsLoop = (name: string): boolean => /\brunWatchLoop\s*\(/.test(codeOf(files.find((f) => f.name === name)!.text));
    expect(['cli/commands/watch.ts', 'io/supervise/supervisor.ts', 'io/group-watch.ts'].filter(startsLoop)).toHaveLength(3);
    // run's supervisor reads no output and keeps no clock of its own: its deciders take the loop's turns.
    const supervisor = codeOf(files.find((f) => f.name === 'io/supervise/supervisor.ts')!.text);
    expect(supervisor).not.toMatch(/\bsetInterval\s*\(|\bsetTimeout\s*\(|\bfor await\b|\.output\[Symbol\.asyncIterator\]/);
  });

  it('reads the wall clock in one module only', () => {
    const readers = files.filter((f) => f.name !== CLOCK_MODULE && /\bDate\.now\s*\(|new Date\s*\(\s*\)/.test(codeOf(f.text))).map((f) => f.name);
    expect(readers).toEqual([]);
  });
});

describe("the tests keep out of the user's own state (issue 25, item 20)", () => {
  it('the run has its own HOME and XDG_STATE_HOME, and a spinup a test starts records its start there, not in the real history', async () => {
    const real = inject('realStateDir');
    const own = defaultStateDir(process.env);
    expect(own, 'test/helpers/own-home.ts, the global setup, gave the run a state dir of its own').toBeDefined();
    expect(own).not.toBe(real);
    expect(process.env.HOME).not.toBe(inject('realHome'));
    expect(own!.startsWith(tmpdir())).toBe(true);
    // A start as most tests make one: the env spread from process.env, no --no-history or --no-state.
    const scratch = mkdtempSync(join(tmpdir(), 'spinup-house-'));
    try {
      const log = join(scratch, `house-${randomUUID()}.log`);
      copyFileSync(fileURLToPath(new URL('../fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log', import.meta.url)), log);
      const watch = spinup(['watch', '--no-follow', '--quiet', log], {});
      expect(await watch.code, watch.stderr()).toBe(0);
      const mentions = (dir: string | undefined): boolean => dir !== undefined && existsSync(join(dir, 'history.jsonl')) && readFileSync(join(dir, 'history.jsonl'), 'utf8').includes(log);
      expect(mentions(own)).toBe(true);
      expect(mentions(real)).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
