/**
 * Test helper: an environment with no `node` to run, for the single executable and the installs
 * that carry it (issue 27). PATH holds only a folder of links to the few shell tools the tests'
 * commands use, and the folders given; a test asserts the shell finds no node there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const SHELL_TOOLS = ['sh', 'bash', 'cat', 'sleep', 'head', 'printf', 'env', 'ls', 'chmod'];

/** A PATH of `first` folders and a folder (made under `scratch`) of links to SHELL_TOOLS. */
export function pathWithoutNode(scratch: string, first: string[] = []): string {
  const tools = join(scratch, 'shell-tools');
  mkdirSync(tools, { recursive: true });
  for (const name of SHELL_TOOLS) {
    const found = ['/bin', '/usr/bin'].map((dir) => join(dir, name)).find((path) => existsSync(path));
    if (found !== undefined && !existsSync(join(tools, name))) symlinkSync(found, join(tools, name));
  }
  return [...first, tools].join(':');
}

/** What `command -v node` finds on `path` (empty when there is none). */
export function nodeOnPath(path: string): string {
  return spawnSync('/bin/sh', ['-c', 'command -v node || true'], { env: { PATH: path }, encoding: 'utf8' }).stdout.trim();
}
