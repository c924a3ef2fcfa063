/**
 * Build step (`npm run build`, after tsc): bundles the CLI that `bin` runs (issue 18 row g).
 *
 *   dist/cli/bin.cjs      the package's bin, the loader: cli/bin.ts with load-cli.ts and
 *                         code-cache.ts as one CommonJS script (an ES module entry costs Node's
 *                         ES module loader, about 5 ms of a cold start)
 *   dist/cli/bin.js       the same loader as an ES module, where tsc's entry was (run by path)
 *   dist/cli/bin-cli.cjs  the whole CLI (cli/start.ts and all it imports, every command) as one
 *                         CommonJS script. A start of tsc's output resolved, read and linked ~120
 *                         ES modules one by one, and the chunks of a split bundle still cost a
 *                         module each; and V8 keeps a code cache of a script, not of an ES module
 *                         (on Node 20). Code loaded with import() stays in the file but runs only
 *                         when used (esbuild's lazy module init): `watch` never runs lint's.
 *   dist/replay/replay-worker.cjs
 *                         the replay worker thread's module and all it imports, one CommonJS
 *                         script (worker-pool.ts starts it when it is there)
 *   dist/cli/code-cache/  code caches (cli/code-cache.ts) of a watch of a fixture, run here just
 *                         now under this node: with and without the shebang's flags, the two ways
 *                         the bin is started (`spinup ...`, `node dist/cli/bin.js ...`)
 *
 * Every other file of dist/ stays as tsc wrote it: the library (dist/index.js) and the other
 * worker threads' modules (the pack reader's) run unbundled. Code that finds files next to its
 * own module (`import.meta.url`: the rules, package.json, the build's pack table, a worker's
 * module, createRequire) keeps finding them: in a bundle each module's `import.meta.url` is
 * rewritten to the URL of its tsc output file.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
const bin = join(outdir, 'bin.js');
const binCjs = join(outdir, 'bin.cjs');
// A CommonJS bundle's own URL, which its modules' `import.meta.url` are rewritten against.
const CJS_URL = 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;';
const cacheDir = join(outdir, 'code-cache');
// A short start that ends READY, through detection, stages, the verdict and the history.
const TRAINING_LOG = join(root, 'fixtures/sglang/09-tp4-l4-qwq32b-ready-health-polls.log');

/**
 * Each bundled module's `import.meta.url` as the URL of the file tsc wrote, relative to `base`
 * (the URL of the bundle, which lies in `bundleDir`).
 */
const ownUrl = (base, bundleDir = outdir) => ({
  name: 'own-import-meta-url',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      const fromBundle = relative(bundleDir, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(fromBundle)}, ${base}).href`;
      return { contents: source.replace(/\bimport\.meta\.url\b/g, url), loader: 'js' };
    });
  },
});

const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // The packages in node_modules are loaded as they are (yaml, ajv and the regex analysers only
  // on first use, see pack/yaml-module.ts), but for picocolors: a few lines every command needs,
  // which bundled are compiled through the code cache instead of found and read at each start.
  external: Object.keys(dependencies).filter((name) => name !== 'picocolors'),
  logLevel: 'warning',
};

for (const name of readdirSync(outdir)) if (/^bin-.*\.c?js$|^bin\.cjs$/.test(name)) rmSync(join(outdir, name));
rmSync(join(root, 'dist', 'replay', 'replay-worker.cjs'), { force: true });
rmSync(cacheDir, { recursive: true, force: true });

await build({
  ...common,
  entryPoints: [join(outdir, 'start.js')],
  outfile: join(outdir, 'bin-cli.cjs'),
  format: 'cjs',
  // load-cli.ts runs the script with CommonJS's arguments, __filename among them.
  banner: { js: CJS_URL },
  plugins: [ownUrl('__bundleUrl')],
});
// An import() left as such would fail in a script run by vm (no loader for it): every one must
// have become esbuild's lazy init (or a require of a package).
if (/\bimport\(/.test(readFileSync(join(outdir, 'bin-cli.cjs'), 'utf8'))) throw new Error('bundle-bin: bin-cli.cjs still holds an import()');

// The loader, twice: the package's bin as a CommonJS script, and tsc's entry (which tests and
// people run by path) as an ES module; both load the same bundle and code cache.
const loader = {
  ...common,
  entryPoints: [bin],
  // Tells cli/load-cli.ts it is the bundled loader, and which file the CLI is in.
  define: { SPINUP_CLI_BUNDLE: JSON.stringify('bin-cli.cjs') },
};
await build({ ...loader, outfile: binCjs, format: 'cjs', banner: { js: CJS_URL }, plugins: [ownUrl('__bundleUrl')] });
await build({ ...loader, outfile: bin, allowOverwrite: true, format: 'esm', plugins: [ownUrl('import.meta.url')] });
for (const file of [bin, binCjs]) chmodSync(file, 0o755);

// The replay worker's thread, one CommonJS script too: loading tsc's ~60 modules one by one as
// ES modules cost each worker about 6.5 MB more (an idle worker with its packs: 19 MB above the
// process, 12.7 MB bundled), which a replay on two threads has to fit under 100 MB with.
const replayDir = join(root, 'dist', 'replay');
await build({
  ...common,
  entryPoints: [join(replayDir, 'replay-worker.js')],
  outfile: join(replayDir, 'replay-worker.cjs'),
  format: 'cjs',
  banner: { js: CJS_URL },
  plugins: [ownUrl('__bundleUrl', replayDir)],
});

train();

/** Runs a watch under each way of starting the bin and keeps the code cache each one wrote. */
function train() {
  // The node flags of the shebang: what follows `node` (an `-u NAME` and assignments before it are env's).
  const shebang = /^#!\/usr\/bin\/env -S (?:\S+ )*?node((?: \S+)*)$/m.exec(readFileSync(bin, 'utf8'))?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
  if (shebang.length === 0) throw new Error(`bundle-bin: no node flags found in the shebang of ${bin}`);
  mkdirSync(cacheDir, { recursive: true });
  for (const flags of [shebang, []]) {
    const state = mkdtempSync(join(tmpdir(), 'spinup-code-cache-'));
    try {
      const env = { ...process.env, XDG_STATE_HOME: state, NO_COLOR: '1' };
      delete env.NODE_OPTIONS;
      const run = spawnSync(process.execPath, [...flags, binCjs, 'watch', '--no-follow', '--quiet', TRAINING_LOG], { env, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`bundle-bin: the training watch exited ${run.status}:\n${run.stdout}${run.stderr}`);
      const written = join(state, 'spinup', 'code-cache');
      for (const name of readdirSync(written)) copyFileSync(join(written, name), join(cacheDir, name));
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  }
}
