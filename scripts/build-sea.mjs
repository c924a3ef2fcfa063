/**
 * `npm run sea` (after `npm run build`): dist/spinup-linux-x64, spinup as one file with no Node
 * to install (issue 27). Node's single-executable applications: this node binary, with a blob
 * injected by postject (pinned in devDependencies) that holds scripts/sea/sea-main.cjs and one
 * asset, `tree`: the files `npm install -g spinup` would put on the disk (the package's dist
 * without maps and declarations, rules, catalog, package.json, and the runtime dependencies'
 * node_modules), gzipped. sea-main.cjs writes the tree once into a cache directory and runs the
 * package's bin from it, so worker threads, the WebAssembly kernels, the pack cache and the status
 * server run the code they run when installed by npm.
 *
 * Only the build machine's architecture is built: Node ships no other one here, and an arm64
 * executable needs an arm64 node binary to inject into.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const output = join(root, 'dist', `spinup-${process.platform}-${process.arch}`);
// Node's fixed sentinel for single-executable blobs (see the Node 20 docs, "Single executable applications").
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
// What an installed package never reads at run time: source maps, declarations, TypeScript and
// markdown files, dot files, and the dependencies' own tests and docs.
const SKIP_FILE = /\.(map|d\.[cm]?ts|[cm]?ts|md|markdown)$|^\./i;
const SKIP_DIR = /^(\..*|test|tests|docs|example|examples)$/i;

if (!existsSync(join(root, 'dist', 'cli', 'bin.cjs'))) throw new Error('build-sea: dist/ is missing: run `npm run build` first');
if (!statSync(process.execPath).isFile() || !readFileSync(process.execPath).includes(FUSE)) {
  throw new Error(`build-sea: ${process.execPath} is not a Node binary that can carry a single-executable blob`);
}

const started = Date.now();
const entries = treeEntries();
const tree = gzipSync(JSON.stringify(entries), { level: 9 });
const treeId = createHash('sha256').update(tree).digest('hex').slice(0, 16);

const work = mkdtempSync(join(tmpdir(), 'spinup-sea-'));
try {
  const main = join(work, 'sea-main.cjs');
  writeFileSync(main, readFileSync(join(root, 'scripts', 'sea', 'sea-main.cjs'), 'utf8').replace('@@SPINUP_TREE_ID@@', treeId));
  writeFileSync(join(work, 'tree.gz'), tree);
  const config = { main, output: join(work, 'blob'), disableExperimentalSEAWarning: true, assets: { tree: join(work, 'tree.gz') } };
  writeFileSync(join(work, 'sea.json'), JSON.stringify(config));
  run(process.execPath, ['--experimental-sea-config', join(work, 'sea.json')]);
  rmSync(output, { force: true });
  copyFileSync(process.execPath, output);
  chmodSync(output, 0o755);
  run(process.execPath, [join(root, 'node_modules', 'postject', 'dist', 'cli.js'), output, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', FUSE]);
} finally {
  rmSync(work, { recursive: true, force: true });
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
console.log(`build-sea: ${relative(root, output)} (${mb(statSync(output).size)}; ${entries.length} files, ${mb(tree.length)} gzipped) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

/** [path, mode, base64] for each file of the installed package and its runtime dependencies. */
function treeEntries() {
  const files = [];
  const add = (dir, under) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, name.name);
      const inTree = `${under}/${name.name}`;
      if (name.isDirectory() && !SKIP_DIR.test(name.name)) add(path, inTree);
      else if (name.isFile() && !SKIP_FILE.test(name.name)) files.push([inTree, statSync(path).mode & 0o777, readFileSync(path).toString('base64')]);
    }
  };
  files.push(['package.json', 0o644, readFileSync(join(root, 'package.json')).toString('base64')]);
  for (const dir of ['dist', 'rules', 'catalog']) add(join(root, dir), dir);
  for (const dep of runtimeDependencies()) add(join(root, dep), dep.split(sep).join('/'));
  return files.filter(([path]) => !/^dist\/spinup-/.test(path));
}

/** The production dependency folders, as npm resolved them (node_modules/x, node_modules/@s/y). */
function runtimeDependencies() {
  const ls = run('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root });
  return ls.split('\n').filter(Boolean).map((line) => relative(root, line)).filter((path) => path.startsWith('node_modules'));
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (result.status !== 0) throw new Error(`build-sea: ${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}
