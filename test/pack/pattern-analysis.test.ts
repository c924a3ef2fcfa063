/**
 * Literals at load time for any pack: a curator's pack, or a shipped pack edited without
 * `npm run build`, gets the same prefilter and the same quiet-line fast path as the shipped one.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compilePack } from '../../src/core/compile-pack.js';
import { Session } from '../../src/core/session.js';
import { SKIP } from '../../src/io/fast-path/quiet-lines.js';
import { quietFor } from '../helpers/quiet-for.js';
import { loadPack, readPackWithIncludes, resolvePackRef, shippedRulesDir } from '../../src/pack/load-pack.js';
import { packCacheDir, readPackCache } from '../../src/pack/pack-cache.js';
import { buildPrecompiledTable } from '../../src/pack/precompile-packs.js';
import { patternKey } from '../../src/pack/precompiled-packs.js';
import { analysePattern, patternAnalysis } from '../../src/pack/pattern-analysis.js';
import { sglangHealthyStart } from '../helpers/log-lines.js';
import { runMain } from '../helpers/run-main.js';

const CURATED_RULE = `  - id: sglang/curated-disk-full
    pattern: 'OSError: \\[Errno 28\\] No space left on device'
    description: 'The disk filled up while the server started.'
    cause: crash
    message: 'no space left on device'
    hint: 'Free disk space.'
`;

const dir = mkdtempSync(join(tmpdir(), 'spinup-curated-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
cpSync(shippedRulesDir(), dir, { recursive: true });
const curatedFile = join(dir, 'sglang.yaml');
writeFileSync(curatedFile, readFileSync(curatedFile, 'utf8').replace('\nfailures:\n', `\nfailures:\n${CURATED_RULE}`));

describe("a curator's pack", () => {
  const shipped = loadPack('sglang');
  const curated = loadPack(curatedFile);

  it('has its new rule, with its literals, and no more always-run rules than the shipped pack', () => {
    expect(curated.allRules.map((rule) => rule.id)).toContain('sglang/curated-disk-full');
    expect(curated.prefilter.alwaysRun).toBe(shipped.prefilter.alwaysRun);
    expect(curated.prefilter.literalCount).toBe(shipped.prefilter.literalCount + 1);
  });

  it('keeps the quiet-line fast path', () => {
    const ruleLiterals = analysePattern('OSError: \\[Errno 28\\] No space left on device', false).literals;
    expect(ruleLiterals?.length).toBeGreaterThan(0);
    const quietLiterals = curated.prefilter.quietLiterals();
    expect(quietLiterals).toBeDefined();
    expect([...quietLiterals!.always, ...quietLiterals!.afterReady, ...quietLiterals!.beforeVerdict]).toEqual(expect.arrayContaining(ruleLiterals!));
    const session = new Session({ packs: [curated], family: 'sglang' });
    const quiet = quietFor(session);
    sglangHealthyStart().slice(0, 5).forEach((line, index) => {
      session.push(line, { lineNo: index + 1 });
      quiet.noteFed(index + 1, line);
    });
    const chatter = Buffer.from('just some chatter\n');
    expect(quiet.classify(chatter, 0, chatter.length - 1)).toBe(SKIP);
  });
});

describe('the build-time table is a start-up cache only', () => {
  const table = buildPrecompiledTable();
  const sources = readPackWithIncludes(resolvePackRef('vllm')).files.map((f) => f.data);

  it('a pack compiled without the table gets exactly the gates and first units the table gives', () => {
    const withTable = compilePack(sources, patternAnalysis(table));
    const without = compilePack(sources, patternAnalysis(undefined));
    expect(without.prefilter.literalCount).toBe(withTable.prefilter.literalCount);
    expect(without.prefilter.alwaysRun).toBe(withTable.prefilter.alwaysRun);
    expect(without.prefilter.quietLiterals()).toEqual(withTable.prefilter.quietLiterals());
    expect(without.prefixes.map((p) => p.firstUnits)).toEqual(withTable.prefixes.map((p) => p.firstUnits));
  });

  it.for(['sglang', 'vllm'])('knows every pattern compiling the shipped %s pack asks about, of every kind of rule', (family) => {
    const files = readPackWithIncludes(resolvePackRef(family)).files.map((f) => f.data);
    const asked: string[] = [];
    const analysis = patternAnalysis(table);
    compilePack(files, {
      ...analysis,
      literalsOf: (pattern, ignoreCase) => {
        asked.push(patternKey(pattern, ignoreCase));
        return analysis.literalsOf!(pattern, ignoreCase);
      },
    });
    expect(asked.length).toBeGreaterThan(100);
    expect(asked.filter((key) => !(key in table.literals))).toEqual([]);
  });

  it('a pattern the analyser cannot read is unknown (it runs on every frame), not an error', () => {
    expect(analysePattern('(', false)).toEqual({ literals: null, firstUnits: null, shortLiterals: null });
    expect(analysePattern('CUDA error', false).literals).toEqual(['CUDA error']);
  });
});

describe("the pack cache in the state dir", () => {
  const state = mkdtempSync(join(tmpdir(), 'spinup-state-'));
  afterAll(() => rmSync(state, { recursive: true, force: true }));
  const cacheDir = packCacheDir({ XDG_STATE_HOME: state })!;
  const packDir = mkdtempSync(join(tmpdir(), 'spinup-cached-'));
  afterAll(() => rmSync(packDir, { recursive: true, force: true }));
  cpSync(dir, packDir, { recursive: true });
  const file = join(packDir, 'sglang.yaml');
  const summary = (pack: ReturnType<typeof loadPack>) => ({
    ids: pack.allRules.map((rule) => rule.id),
    literals: pack.prefilter.literalCount,
    alwaysRun: pack.prefilter.alwaysRun,
    quiet: pack.prefilter.quietLiterals(),
    firstUnits: pack.prefixes.map((p) => p.firstUnits),
  });

  it('lives under XDG_STATE_HOME, else ~/.local/state; none without a home', () => {
    expect(cacheDir).toBe(join(state, 'spinup', 'packs'));
    expect(packCacheDir({ HOME: '/home/u' })).toBe('/home/u/.local/state/spinup/packs');
    expect(packCacheDir({})).toBeUndefined();
  });

  it('gives what reading the pack gives, and follows an edit of any file of the pack', () => {
    const read = summary(loadPack(file));
    expect(readPackCache(cacheDir, file)).toBeUndefined();
    expect(summary(loadPack(file, { cacheDir }))).toEqual(read);
    const cached = readPackCache(cacheDir, file);
    expect(cached?.sources.map((source) => source.pack)).toEqual(['sglang', 'common']);
    expect(summary(loadPack(file, { cacheDir }))).toEqual(read);
    // The included common pack changes: the cache is stale, the pack is read again.
    const common = join(packDir, 'common.yaml');
    writeFileSync(common, readFileSync(common, 'utf8').replace('\nfailures:\n', `\nfailures:\n${CURATED_RULE.replace('sglang/curated-disk-full', 'common/curated-disk-full')}`));
    expect(readPackCache(cacheDir, file)).toBeUndefined();
    expect(loadPack(file, { cacheDir }).allRules.map((rule) => rule.id)).toContain('common/curated-disk-full');
    expect(readPackCache(cacheDir, file)).toBeDefined();
  });

  it('a corrupt cache file is ignored', () => {
    loadPack(file, { cacheDir });
    for (const name of readdirSync(cacheDir)) writeFileSync(join(cacheDir, name), '{"version": ');
    expect(readPackCache(cacheDir, file)).toBeUndefined();
    expect(loadPack(file, { cacheDir }).allRules.map((rule) => rule.id)).toContain('sglang/curated-disk-full');
  });
});

describe('watch with a pack of one’s own', () => {
  it('caches the pack in the state dir XDG_STATE_HOME names, and answers the same from the cache', async () => {
    const state = mkdtempSync(join(tmpdir(), 'spinup-state-cli-'));
    try {
      const log = join(state, 'start.log');
      writeFileSync(log, `${sglangHealthyStart().join('\n')}\nOSError: [Errno 28] No space left on device\n`);
      const argv = ['watch', '--no-follow', '--no-history', '--pack', curatedFile, log];
      const first = await runMain(argv, { env: { XDG_STATE_HOME: state } });
      expect(readdirSync(join(state, 'spinup', 'packs'))).toHaveLength(1);
      const second = await runMain(argv, { env: { XDG_STATE_HOME: state } });
      expect(second.code).toBe(first.code);
      expect(second.stdout).toBe(first.stdout);
      expect(first.stdout).toContain('no space left on device');
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });
});
