/**
 * Finds fixtures from files, directories and globs: pairs (`NAME.log` + `NAME.expect.yaml`) and
 * groups (a folder `NAME.group/` of `node0.log`, `node1.log`, ... + `NAME.expect.yaml` beside it).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import fg from 'fast-glob';

export interface FixturePair {
  log: string;
  expect: string;
}

/** The nodes of one multi-node start, each `nodeR.log` of the folder by its rank. */
export interface FixtureGroup {
  dir: string;
  expect: string;
  nodes: { node: number; log: string }[];
}

export function expectFileForGroup(dir: string): string {
  return dir.replace(/\.group\/?$/, '.expect.yaml');
}

/** The `nodeR.log` files of a group folder, by rank. */
export function groupNodes(dir: string): { node: number; log: string }[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const match = /^node(\d+)\.log$/.exec(name);
      return match ? [{ node: Number(match[1]), log: join(dir, name) }] : [];
    })
    .sort((a, b) => a.node - b.node);
}

/**
 * Built flat by `join`, not by `replace` or `+`: those return a rope (the log's path and the
 * suffix) that V8 copies into one string the first time it is used. Discovery keeps each
 * fixture's path for the whole replay, and that copy would be made in the middle of it, among the
 * cases' garbage, where it outlived its case, was promoted, and held on to the old-space page it
 * landed on: a replay of 10,000 fixtures grew its live heap ~150 bytes a case, its pages more.
 */
export function expectFileFor(log: string): string {
  return log.endsWith('.log') ? [log.slice(0, -'.log'.length), '.expect.yaml'].join('') : log;
}

/** Each argument is a `.log` file, a directory (searched recursively) or a glob. Sorted, de-duplicated. */
export function discoverFixtures(targets: readonly string[], cwd = process.cwd()): { pairs: FixturePair[]; groups: FixtureGroup[]; missing: string[] } {
  const logs = new Set<string>();
  const groupDirs = new Set<string>();
  const missing: string[] = [];
  for (const target of targets) {
    const path = resolve(cwd, target);
    if (existsSync(path) && statSync(path).isDirectory() && path.endsWith('.group')) {
      groupDirs.add(path);
    } else if (existsSync(path) && statSync(path).isDirectory()) {
      for (const log of fg.sync('**/*.log', { cwd: path, absolute: true, dot: false })) logs.add(log);
      for (const dir of fg.sync('**/*.group', { cwd: path, absolute: true, onlyDirectories: true })) groupDirs.add(dir);
    } else if (existsSync(path)) {
      logs.add(path);
    } else if (fg.isDynamicPattern(target)) {
      const found = fg.sync(target, { cwd, absolute: true, onlyFiles: false, markDirectories: true });
      const foundLogs = found.filter((f) => f.endsWith('.log'));
      const foundGroups = found.filter((f) => f.endsWith('.group/')).map((f) => f.slice(0, -1));
      if (foundLogs.length + foundGroups.length === 0) missing.push(target);
      for (const log of foundLogs) logs.add(log);
      for (const dir of foundGroups) groupDirs.add(dir);
    } else {
      missing.push(target);
    }
  }
  const pairs = [...logs]
    .sort()
    .filter((log) => existsSync(expectFileFor(log)))
    .map((log) => ({ log, expect: expectFileFor(log) }));
  const groups = [...groupDirs]
    .sort()
    .filter((dir) => existsSync(expectFileForGroup(dir)) && basename(dir) !== '.group')
    .map((dir) => ({ dir, expect: expectFileForGroup(dir), nodes: groupNodes(dir) }))
    .filter((group) => group.nodes.length > 0);
  return { pairs, groups, missing };
}
