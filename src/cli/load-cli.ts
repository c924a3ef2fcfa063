/**
 * Loads the CLI for `bin.ts`: the one-file bundle the build wrote beside it (bin-cli.cjs, see
 * scripts/bundle-bin.mjs), compiled through its code cache (cli/code-cache.ts); or, run as tsc
 * wrote it (a dist/ nothing bundled), tsc's own modules.
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

// The bundle's file name, which scripts/bundle-bin.mjs writes in here when it bundles this
// loader; in tsc's own output it stays undeclared, and tsc's modules are what that dist/ runs
// (a bin-cli.cjs beside them may be left from an earlier build).
declare const SPINUP_CLI_BUNDLE: string | undefined;

export async function loadCli(env: NodeJS.ProcessEnv): Promise<LoadedCli> {
  if (typeof SPINUP_CLI_BUNDLE !== 'string') {
    // A specifier the bundler leaves alone, so it could never inline the CLI here.
    const unbundled = './start.js';
    const { start } = (await import(unbundled)) as { start: Start };
    return { start, keep: () => undefined };
  }
  const here = dirname(fileURLToPath(import.meta.url));
  const filename = join(here, SPINUP_CLI_BUNDLE);
  const own = defaultStateDir(env);
  const compiled = compileCached({
    source: readFileSync(filename),
    filename,
    dirs: { own: own === undefined ? undefined : join(own, 'code-cache'), shipped: join(here, 'code-cache') },
    flags: `${process.execArgv.join(' ')}|${env.NODE_OPTIONS ?? ''}`,
  });
  const module = { exports: {} as { start?: Start } };
  const wrapper = compiled.script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(filename), module, filename, here);
  return { start: module.exports.start!, keep: compiled.keep };
}
