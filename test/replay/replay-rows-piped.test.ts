/**
 * Replay into a pipe writes its rows in batches (replay-reporters.ts, CaseRows): a corpus whose
 * rows fill several batches must still print every row once, in discovery order, then the tally,
 * in the table and in --json.
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spinup-process.js';
import { repoRoot } from '../helpers/run-main.js';

const COPIES = 500;
const FIXTURES = ['vllm/02-v085post1-smollm-single-gpu-ready', 'sglang/10-tp2-stuck-nccl-init-hang'];
const LONG = 240_000;

function replay(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'replay', '--jobs', '1', ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout }));
  });
}

describe('replay into a pipe', () => {
  let dir = '';
  const names: string[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'spinup-rows-'));
    for (let copy = 0; copy < COPIES; copy++) {
      // Zero-padded, so discovery's sorted order is the copies' order.
      const folder = join(dir, `copy-${String(copy).padStart(3, '0')}`);
      mkdirSync(folder);
      for (const fixture of FIXTURES) {
        const name = fixture.replace('/', '-');
        copyFileSync(join(repoRoot, 'fixtures', `${fixture}.log`), join(folder, `${name}.log`));
        copyFileSync(join(repoRoot, 'fixtures', `${fixture}.expect.yaml`), join(folder, `${name}.expect.yaml`));
      }
      for (const fixture of [...FIXTURES].map((f) => f.replace('/', '-')).sort()) names.push(`copy-${String(copy).padStart(3, '0')}/${fixture}`);
    }
  });

  it('the table: every row once, in discovery order, more than one batch of them, then the tally', { timeout: LONG }, async () => {
    const run = await replay([dir]);
    expect(run.code).toBe(0);
    const rows = [...run.stdout.matchAll(/^pass {2}(\S+)/gm)].map((row) => row[1]);
    expect(rows).toEqual(names);
    // More than a batch (32 KB) of rows, so batches were cut and joined.
    expect(run.stdout.length).toBeGreaterThan(64 * 1024);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`${names.length} passed, 0 failed`);
  });

  it('--json: one object per case, in discovery order, then the summary', { timeout: LONG }, async () => {
    const run = await replay(['--json', dir]);
    expect(run.code).toBe(0);
    const objects = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; file?: string });
    expect(objects.filter((o) => o.type === 'case').map((o) => o.file!.replace(/^.*(copy-\d+)\/(.*)\.log$/, '$1/$2'))).toEqual(names);
    expect(objects.at(-1)).toEqual({ type: 'summary', passed: names.length, failed: 0, total: names.length });
  });
});
