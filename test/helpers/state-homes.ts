/** Fresh state dirs for spinup processes under one scratch dir, and the state files a start leaves in one. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunFile } from '../../src/serve/run-files.js';

/** Each call: a new state dir under `scratch`, as the env a spinup process gets and its runs/ folder. */
export function stateHomes(scratch: string): () => { env: NodeJS.ProcessEnv; runs: string } {
  let homes = 0;
  return () => {
    const dir = join(scratch, `state-${++homes}`);
    return { env: { XDG_STATE_HOME: dir }, runs: join(dir, 'spinup', 'runs') };
  };
}

/** The state files in `runs` (none when the folder is not there). */
export function runFiles(runs: string): RunFile[] {
  if (!existsSync(runs)) return [];
  return readdirSync(runs)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(runs, f), 'utf8')) as RunFile);
}
