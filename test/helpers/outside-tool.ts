/**
 * Test helper: where the real outside tools fetched by scripts/fetch-tools.sh live (.tools/), and
 * what a test does when one is missing: under CI it fails (a required tool never skips silently
 * there); elsewhere it skips and says which tool and how to fetch it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './run-main.js';

export const toolsDir = join(repoRoot, '.tools');

/** The absolute path of a fetched tool (relative to .tools/), or undefined when it is not there. */
export function findTool(relativePath: string): string | undefined {
  const path = join(toolsDir, relativePath);
  return existsSync(path) ? path : undefined;
}

export interface ToolCheck {
  path: string | undefined;
  /** true when the tests that need it should be skipped (missing, and not under CI). */
  skip: boolean;
}

/**
 * Looks a tool up for a describe block: `describe.skipIf(tool.skip)(...)`. Under CI a missing tool
 * is not skipped: the suite runs and its first test fails with `missingToolMessage`.
 */
export function requireTool(relativePath: string, env: NodeJS.ProcessEnv = process.env): ToolCheck {
  const path = findTool(relativePath);
  const underCi = Boolean(env.CI) && env.CI !== 'false';
  if (path === undefined && !underCi) {
    process.stderr.write(`skipping tests that need .tools/${relativePath}: run bash scripts/fetch-tools.sh to fetch it\n`);
  }
  return { path, skip: path === undefined && !underCi };
}

export function missingToolMessage(relativePath: string): string {
  return `.tools/${relativePath} is missing: scripts/fetch-tools.sh could not fetch it (see .tools/*.fetch.log)`;
}
