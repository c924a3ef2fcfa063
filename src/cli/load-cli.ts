/**
 * Loads the CLI for `bin.ts`: the one-file bundle the build wrote beside it (bin-cli.cjs, see
 * scripts/bundle-bin.mjs), compiled through its code cache (cli/code-cache.ts); or, in a dist/
 * that tsc wrote but nothing bundled, tsc's own modules.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultStateDir } from '../history/history-path.js';
import { compileCached } from './code-cache.js';

export interface LoadedCli {
  start(): Promise<number>;
  /** Call when the run is over: keeps what it compiled for the next start. */
  keep(): void;
}

type Start = () => Promise<number>;

export async function loadCli(env: NodeJS.ProcessEnv): Promise<LoadedCli> {
  const here = dirname(fileURLToPath(import.meta.url));
  const filename = join(here, 'bin-cli.cjs');
  let source: Buffer;
  try {
    source = readFileSync(filename);
  } catch {
    // Not bundled: a specifier the bundler leaves alone, so it never inlines the CLI here.
    const unbundled = './start.js';
    const { start } = (await import(unbundled)) as { start: Start };
    return { start, keep: () => undefined };
  }
  const own = defaultStateDir(env);
  const compiled = compileCached({
    source,
    filename,
    dirs: { own: own === undefined ? undefined : join(own, 'code-cache'), shipped: join(here, 'code-cache') },
    flags: `${process.execArgv.join(' ')}|${env.NODE_OPTIONS ?? ''}`,
  });
  const module = { exports: {} as { start?: Start } };
  const wrapper = compiled.script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(filename), module, filename, here);
  return { start: module.exports.start!, keep: compiled.keep };
}
