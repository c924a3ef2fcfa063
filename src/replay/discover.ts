/** Finds fixture pairs (`NAME.log` + `NAME.expect.yaml`) from files, directories and globs. */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import fg from 'fast-glob';

export interface FixturePair {
  log: string;
  expect: string;
}

export function expectFileFor(log: string): string {
  return log.replace(/\.log$/, '.expect.yaml');
}

/** Each argument is a `.log` file, a directory (searched recursively) or a glob. Sorted, de-duplicated. */
export function discoverFixtures(targets: readonly string[], cwd = process.cwd()): { pairs: FixturePair[]; missing: string[] } {
  const logs = new Set<string>();
  const missing: string[] = [];
  for (const target of targets) {
    const path = resolve(cwd, target);
    if (existsSync(path) && statSync(path).isDirectory()) {
      for (const log of fg.sync('**/*.log', { cwd: path, absolute: true, dot: false })) logs.add(log);
    } else if (existsSync(path)) {
      logs.add(path);
    } else if (fg.isDynamicPattern(target)) {
      const found = fg.sync(target, { cwd, absolute: true }).filter((f) => f.endsWith('.log'));
      if (found.length === 0) missing.push(target);
      for (const log of found) logs.add(log);
    } else {
      missing.push(target);
    }
  }
  const pairs = [...logs]
    .sort()
    .filter((log) => existsSync(expectFileFor(log)))
    .map((log) => ({ log, expect: expectFileFor(log) }));
  return { pairs, missing };
}
