/** Where the shipped packs are, which families they are, and what a `--pack` value names. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `rules/` of this installation (next to `dist/` or `src/`). */
export function shippedRulesDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'rules');
}

/**
 * The families spinup ships packs for: each `rules/NAME.yaml` that declares stages (a shared
 * pack such as `common` declares none). A new family is a new pack file; no code names it.
 */
export const FAMILIES: readonly string[] = shippedFamilies(shippedRulesDir());

function shippedFamilies(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .filter((name) => /^stages:/m.test(readFileSync(join(dir, name), 'utf8')))
    .map((name) => basename(name, '.yaml'));
}

/** Every shipped pack's name, families and shared packs alike (what an `include:` may name). */
export function shippedPackNames(dir = shippedRulesDir()): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => basename(name, '.yaml'));
}

/** `sglang` names a shipped pack; anything with a slash or `.yaml` is a path. */
export function resolvePackRef(ref: string, rulesDir = shippedRulesDir()): string {
  if (/[\\/]/.test(ref) || /\.ya?ml$/.test(ref)) return resolve(ref);
  return join(rulesDir, `${ref}.yaml`);
}

/**
 * The file of a pack that `packFile` includes by `name`: the one beside it, as a pack set is
 * written; else, for a pack copied out alone (`cp rules/sglang.yaml my/`), the shipped pack of
 * that name. With neither, the path beside it (which the error names).
 */
export function includedPackPath(packFile: string, name: string, rulesDir = shippedRulesDir()): string {
  const beside = join(dirname(packFile), `${name}.yaml`);
  if (existsSync(beside)) return beside;
  const shipped = join(rulesDir, `${name}.yaml`);
  return existsSync(shipped) ? shipped : beside;
}
