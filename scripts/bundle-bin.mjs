/**
 * Build step (`npm run build`, after tsc): bundles the CLI that `bin` runs. A start of tsc's
 * output resolves, reads and links ~120 ES modules one by one; the bundle is a few files, which
 * saves about a fifth of a cold start (issue 18 row g). Commands and code loaded with import()
 * stay separate chunks, loaded only when used.
 *
 * dist/cli/bin.js (tsc's entry) is replaced by the bundle's entry, its chunks beside it as
 * dist/cli/bin-*.js. Every other file of dist/ stays as tsc wrote it: the library (dist/index.js)
 * and anything started by path (a worker thread's module) run unbundled.
 *
 * Code that finds files next to its own module (`import.meta.url`: the rules, package.json, the
 * build's pack table, a worker's module, createRequire) keeps finding them: in the bundle each
 * module's `import.meta.url` is rewritten to the URL of its tsc output file.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');

/** Each bundled module's `import.meta.url` as the URL of the file tsc wrote, relative to the bundle. */
const ownUrl = {
  name: 'own-import-meta-url',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      const fromBundle = relative(outdir, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
      return { contents: source.replace(/\bimport\.meta\.url\b/g, url), loader: 'js' };
    });
  },
};

for (const name of readdirSync(outdir)) if (/^bin-.*\.js$/.test(name)) rmSync(join(outdir, name));

await build({
  entryPoints: [join(outdir, 'bin.js')],
  outdir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The packages in node_modules are loaded as they are (yaml, ajv and the regex analysers only
  // on first use, see pack/yaml-module.ts).
  packages: 'external',
  chunkNames: 'bin-[name]-[hash]',
  plugins: [ownUrl],
  logLevel: 'warning',
});
