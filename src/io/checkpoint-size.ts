/**
 * The size of the checkpoint a server loads: the weight files (`*.safetensors`, `*.bin`, `*.pt`, `*.pth`,
 * `*.gguf`) of a local directory, or of a hub id (`org/name`) found in the local Hugging Face cache
 * (`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`), whose files are symlinks to blobs.
 * Undefined when the model is not on this host: the progress then shows bytes and rate only.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const WEIGHT_FILE = /\.(safetensors|bin|pt|pth|gguf)$/;

export function checkpointBytes(model: string | undefined, env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (model === undefined || model === '') return undefined;
  const local = weightBytesIn(model);
  if (local !== undefined) return local;
  if (!/^[\w.-]+\/[\w.-]+$/.test(model)) return undefined;
  const snapshots = join(hubCache(env), `models--${model.replace('/', '--')}`, 'snapshots');
  // The newest snapshot is the one a server without a --revision loads.
  const newest = entries(snapshots)
    .map((name) => join(snapshots, name))
    .map((dir) => ({ dir, mtime: statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.mtime - a.mtime)[0];
  return newest ? weightBytesIn(newest.dir) : undefined;
}

function hubCache(env: NodeJS.ProcessEnv): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME ?? join(env.HOME ?? homedir(), '.cache'), 'huggingface', 'hub');
}

/** The weight files' total size in `dir` (symlinks followed); undefined when it holds none. */
function weightBytesIn(dir: string): number | undefined {
  let total = 0;
  let found = false;
  for (const name of entries(dir)) {
    if (!WEIGHT_FILE.test(name)) continue;
    const info = statSync(join(dir, name), { throwIfNoEntry: false });
    if (!info?.isFile()) continue;
    total += info.size;
    found = true;
  }
  return found ? total : undefined;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
