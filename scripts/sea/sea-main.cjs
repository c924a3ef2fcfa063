/**
 * The single executable's main script (`npm run sea`, scripts/build-sea.mjs). The executable
 * carries the installed package (its bin, bundles, worker modules, rules, catalog and runtime
 * dependencies) as one asset, `tree`. Worker threads and the packs' readers want files on a
 * disk, so the first start writes the tree once into a cache directory named after its digest;
 * every later start finds it there (one stat) and runs the package's own bin from it, exactly as
 * `npm install -g spinup` would. Only Node's builtins can be required here.
 */
'use strict';
const { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { homedir, tmpdir } = require('node:os');
const { dirname, join } = require('node:path');

// Written in by the build: the digest of the tree asset, so a new build never runs an old tree.
const TREE_ID = '@@SPINUP_TREE_ID@@';
const COMPLETE = '.complete';

/** Where the tree may live, in order of preference; a pod's read-only home falls through to /tmp. */
function candidateDirs(env) {
  const dirs = [];
  if (env.SPINUP_SEA_CACHE) dirs.push(env.SPINUP_SEA_CACHE);
  if (env.XDG_CACHE_HOME) dirs.push(join(env.XDG_CACHE_HOME, 'spinup'));
  try {
    dirs.push(join(homedir(), '.cache', 'spinup'));
  } catch {
    // no home directory (a container's arbitrary uid): the temp dir below
  }
  dirs.push(join(tmpdir(), `spinup-${process.getuid?.() ?? 'user'}`));
  return dirs.map((dir) => join(dir, `sea-${TREE_ID}`));
}

/** Writes the tree into a private directory, then renames it into place (a racing start's copy wins or ours does). */
function extract(root) {
  const { gunzipSync } = require('node:zlib');
  const entries = JSON.parse(gunzipSync(Buffer.from(require('node:sea').getAsset('tree'))).toString('utf8'));
  const staging = `${root}.${process.pid}.${Date.now()}`;
  try {
    for (const [path, mode, data] of entries) {
      const file = join(staging, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.from(data, 'base64'), { mode });
    }
    writeFileSync(join(staging, COMPLETE), '');
    renameSync(staging, root);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(root, COMPLETE))) throw error;
  }
}

function installedTree(env) {
  let lastError;
  for (const root of candidateDirs(env)) {
    if (existsSync(join(root, COMPLETE))) return root;
    try {
      mkdirSync(dirname(root), { recursive: true });
      extract(root);
      return root;
    } catch (error) {
      lastError = error;
    }
  }
  process.stderr.write(`spinup: could not unpack the executable's files into a cache directory (${lastError?.message}); set SPINUP_SEA_CACHE to a writable directory\n`);
  process.exit(69); // EXIT.unavailable: nothing here to run from
}

const bin = join(installedTree(process.env), 'dist', 'cli', 'bin.cjs');
createRequire(bin)(bin);
