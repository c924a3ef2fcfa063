/**
 * The bundled CLI's code cache (cli/code-cache.ts): used only when it is whole and made for this
 * very source; a stale, damaged or refused one is ignored and written anew; a state dir that
 * cannot be written changes nothing but the speed. In-process on a small script: which cache is
 * chosen (V8 answers from its own in-memory cache for a source it compiled before in this
 * process, so only a new process shows what V8 takes); then through the built bin.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheName, compileCached, type CacheDirs } from '../../src/cli/code-cache.js';
import { repoRoot } from '../helpers/run-main.js';
import { BIN } from '../helpers/spinup-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'spinup-code-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let made = 0;
/** Fresh own and shipped dirs. */
function dirs(): CacheDirs {
  const base = join(scratch, `case-${++made}`);
  return { own: join(base, 'own'), shipped: join(base, 'shipped') };
}

// Enough functions for V8 to have something to cache; `module.exports.answer` proves the script ran.
const SOURCE = Buffer.from(
  `${Array.from({ length: 40 }, (_, k) => `function f${k}(x) { return x * ${k} + ${k}; }`).join('\n')}\nmodule.exports.answer = f1(41);\n`,
);
const FLAGS = 'test-flags';

/** Compiles and runs `source` like load-cli.ts does; what it exported, and whether a cache served. */
function run(source: Buffer, where: CacheDirs, flags = FLAGS): { answer: unknown; cached: boolean; keep: () => void } {
  const compiled = compileCached({ source, filename: join(scratch, 'bundle.cjs'), dirs: where, flags });
  const module = { exports: {} as { answer?: unknown } };
  (compiled.script.runInThisContext() as (...args: unknown[]) => void)(module.exports, undefined, module, 'bundle.cjs', scratch);
  return { answer: module.exports.answer, cached: compiled.cached, keep: compiled.keep };
}

function cacheFile(where: CacheDirs, flags = FLAGS): string {
  return join(where.own!, cacheName(flags));
}

describe('the code cache, in-process', () => {
  it('a first run has none and writes one after it; the next run is served by it and writes nothing', () => {
    const where = dirs();
    const first = run(SOURCE, where);
    expect(first).toMatchObject({ answer: 42, cached: false });
    expect(existsSync(where.own!)).toBe(false);
    first.keep();
    const written = readFileSync(cacheFile(where));
    const second = run(SOURCE, where);
    expect(second).toMatchObject({ answer: 42, cached: true });
    second.keep();
    expect(readFileSync(cacheFile(where))).toEqual(written);
  });

  const damages: [string, (file: Buffer) => Buffer | undefined][] = [
    ['a flipped byte in the cache', (file) => void (file[file.length - 10]! ^= 0xff)],
    ['a file cut short', (file) => file.subarray(0, 100)],
    ['a header of another format', (file) => void file.writeUInt32LE(99, 4)],
    ['no header at all', () => Buffer.from('not a cache')],
  ];
  it.for(damages)('%s: ignored, the script runs from source, and a whole cache is written again', ([, damage]) => {
    const where = dirs();
    run(SOURCE, where).keep();
    const whole = readFileSync(cacheFile(where));
    const file = Buffer.from(whole);
    writeFileSync(cacheFile(where), damage(file) ?? file);
    const damaged = run(SOURCE, where);
    expect(damaged).toMatchObject({ answer: 42, cached: false });
    damaged.keep();
    expect(run(SOURCE, where).cached).toBe(true);
  });

  it('a cache of an earlier build of the bundle, even one of the same length, is not used for this one', () => {
    const where = dirs();
    run(SOURCE, where).keep();
    // Same length, other code: V8 itself would take the old cache (it checks the length only).
    const changed = Buffer.from(SOURCE.toString().replace('f1(41)', 'f2(41)'));
    expect(changed.length).toBe(SOURCE.length);
    const next = run(changed, where);
    expect(next).toMatchObject({ answer: 84, cached: false });
    next.keep();
    expect(run(changed, where)).toMatchObject({ answer: 84, cached: true });
  });

  it('the shipped cache serves when this machine has none, and is never written to', () => {
    const made = dirs();
    run(SOURCE, made).keep();
    const where = dirs();
    mkdirSync(where.shipped, { recursive: true });
    writeFileSync(join(where.shipped, cacheName(FLAGS)), readFileSync(cacheFile(made)));
    const before = statSync(join(where.shipped, cacheName(FLAGS))).mtimeMs;
    const served = run(SOURCE, where);
    expect(served).toMatchObject({ answer: 42, cached: true });
    served.keep();
    expect(existsSync(where.own!)).toBe(false);
    expect(statSync(join(where.shipped, cacheName(FLAGS))).mtimeMs).toBe(before);
  });

  it("this machine's damaged cache, when the shipped one serves, is removed rather than read again", () => {
    const made = dirs();
    run(SOURCE, made).keep();
    const where = dirs();
    mkdirSync(where.shipped, { recursive: true });
    writeFileSync(join(where.shipped, cacheName(FLAGS)), readFileSync(cacheFile(made)));
    mkdirSync(where.own!, { recursive: true });
    writeFileSync(cacheFile(where), 'damaged');
    const served = run(SOURCE, where);
    expect(served.cached).toBe(true);
    served.keep();
    expect(existsSync(cacheFile(where))).toBe(false);
  });

  it('caches made under other flags are kept apart; the four newest caches stay, older ones go, other files are left', () => {
    const where = dirs();
    mkdirSync(where.own!, { recursive: true });
    // Two of another node, written long ago, and one of yesterday: the oldest go first.
    const old = ['v0.0.1-linux-x64-1.v8cache', 'v0.0.2-linux-x64-2.v8cache', 'v0.0.3-linux-x64-3.v8cache'];
    old.forEach((name, k) => {
      writeFileSync(join(where.own!, name), 'old');
      utimesSync(join(where.own!, name), 1_000_000 + k, 1_000_000 + k);
    });
    writeFileSync(join(where.own!, 'notes.txt'), 'mine');
    run(SOURCE, where, 'one').keep();
    expect(readdirSync(where.own!).sort()).toEqual([cacheName('one'), ...old, 'notes.txt'].sort());
    run(SOURCE, where, 'two').keep();
    expect(readdirSync(where.own!).sort()).toEqual([cacheName('one'), cacheName('two'), old[1], old[2], 'notes.txt'].sort());
    expect(run(SOURCE, where, 'one').cached).toBe(true);
    expect(run(SOURCE, where, 'two').cached).toBe(true);
  });

  it('a state dir that cannot be written: the run is the same, nothing is thrown, no temporary file is left', () => {
    const where = dirs();
    mkdirSync(join(where.own!, '..'), { recursive: true });
    // A file where the cache dir would be: mkdir fails as on a read-only home.
    writeFileSync(where.own!, 'in the way');
    const first = run(SOURCE, where);
    expect(first.answer).toBe(42);
    expect(() => first.keep()).not.toThrow();
    expect(readFileSync(where.own!, 'utf8')).toBe('in the way');
    expect(run(SOURCE, where).cached).toBe(false);
  });
});

describe('the code cache, through the bin', () => {
  const log = join(repoRoot, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');
  // Flags no build trains for: no shipped cache fits, so the state dir's is the one in play.
  const flags = ['--stack-size=900'];
  const watch = (state: string) => {
    const run = spawnSync(process.execPath, [...flags, BIN, 'watch', '--no-follow', '--no-history', log], {
      env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: state },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return [run.status, run.stdout, run.stderr] as const;
  };
  /** The one cache file in `state`, and its inode (a cache written anew is a new file renamed into place). */
  const cacheIn = (state: string) => {
    const dir = join(state, 'spinup', 'code-cache');
    const names = readdirSync(dir);
    expect(names).toHaveLength(1);
    const file = join(dir, names[0]!);
    return { file, bytes: readFileSync(file), inode: statSync(file).ino };
  };

  /**
   * `planted` written as the cache `file` of `state`: the next watch prints what the `first` did
   * and writes a cache of its own in its place, which the watch after it is served by.
   */
  const replacedThenServed = (state: string, file: string, planted: Buffer, first: ReturnType<typeof watch>): void => {
    writeFileSync(file, planted);
    const plantedInode = statSync(file).ino;
    expect(watch(state)).toEqual(first);
    const replaced = cacheIn(state);
    expect(replaced.inode).not.toBe(plantedInode);
    expect(replaced.bytes.equals(planted)).toBe(false);
    expect(watch(state)).toEqual(first);
    expect(cacheIn(state).inode).toBe(replaced.inode);
  };

  it('writes its cache after the first run, then is served by it; a damaged one is ignored and written anew; the output never changes', () => {
    const state = join(scratch, 'bin-state');
    const first = watch(state);
    expect(first[0]).toBe(0);
    expect(first[1]).toMatch(/^READY sglang/m);
    const written = cacheIn(state);
    expect(watch(state)).toEqual(first);
    // Served, so not written again.
    expect(cacheIn(state).inode).toBe(written.inode);

    const damaged = Buffer.from(written.bytes);
    for (let at = 1000; at < damaged.length; at += 997) damaged[at]! ^= 0x5a;
    replacedThenServed(state, written.file, damaged, first);
  });

  it('a cache V8 refuses (made under other flags) though its header fits is replaced by one it takes', () => {
    const state = join(scratch, 'bin-refused');
    const first = watch(state);
    const mine = cacheIn(state);
    // A shipped cache: made by the build for this very bundle, under other flags.
    const shipped = join(repoRoot, 'dist/cli/code-cache');
    const other = readFileSync(join(shipped, readdirSync(shipped)[0]!));
    expect(other.subarray(8, 16)).toEqual(mine.bytes.subarray(8, 16));
    replacedThenServed(state, mine.file, other, first);
  });
});
