/**
 * Issue 27 item 4: the README fits on a screen or two, and what it held before it was split
 * lives on in docs/ (its console examples are run by readme-examples.test.ts, as the README's).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/run-main.js';

const DOCUMENTS = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
const text = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

/** The headings of a markdown file, outside its fenced blocks (where `# HELP` is a metric's comment). */
function headings(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').flatMap((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    return !fenced && /^#{1,6} /.test(line) ? [line.replace(/^#+ /, '')] : [];
  });
}

// The README's headings before the split (commit 9f43404): each is a section someone may look for.
const HEADINGS_BEFORE_THE_SPLIT = [
  'Quick start',
  'Commands',
  'Exit codes',
  'Watch a start',
  'Multi-node',
  'Across machines: followers push to the head',
  'Launch and supervise',
  'Follow a start from anywhere: status, attach, probe',
  'Kubernetes and Prometheus',
  'Curating rules',
  'What is normal here: history, ETAs and learned budgets',
  'A picture of the start: `spinup report`',
  'Performance',
  'What spinup does with bad input',
  'What spinup says',
  'Rule packs',
  'How right it is on logs it has not seen',
  'Fixtures',
  'Architecture',
  'Dependencies',
];

describe('27.4: the README and docs/', () => {
  it('27.4: the README is at most 250 lines', () => {
    expect(text('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('27.4: every heading the README had is a heading in the README or in docs/', () => {
    const found = new Set(DOCUMENTS.flatMap((file) => headings(text(file))));
    expect(HEADINGS_BEFORE_THE_SPLIT.filter((heading) => !found.has(heading))).toEqual([]);
  });

  it('27.4: the README answers what it must: install three ways, the two commands, READY, FAILED and STALLED, the commands, the exit codes, the guides', () => {
    const readme = text('README.md');
    for (const way of ['npm pack', 'npm run sea', 'npm run wheel']) expect(readme).toContain(way);
    for (const verdict of ['READY', 'FAILED', 'STALLED']) expect(readme).toMatch(new RegExp(`^${verdict} (sglang|vllm) `, 'm'));
    expect(readme).toMatch(/^spinup watch /m);
    expect(readme).toMatch(/^spinup run /m);
    expect(headings(readme)).toEqual(expect.arrayContaining(['Install', 'Quick start', 'Commands', 'Exit codes', 'Documentation']));
    for (const guide of DOCUMENTS.filter((file) => file.startsWith('docs/'))) expect(readme, `the README links ${guide}`).toContain(`](${guide})`);
  });

  it.for(DOCUMENTS)('27.4: every relative link in %s leads to a file that exists', (file) => {
    const targets = [...text(file).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:|^#/.test(target));
    for (const target of targets) expect(existsSync(join(repoRoot, dirname(file), target.replace(/#.*$/, ''))), `${file} links ${target}`).toBe(true);
  });
});
