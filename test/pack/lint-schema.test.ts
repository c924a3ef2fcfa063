/** rules/pack.schema.json is generated from src/pack/schema.ts; this fails when someone forgot to regenerate it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packSchemaJson } from '../../src/pack/schema-json.js';
import { repoRoot } from '../helpers/run-main.js';

describe('rules/pack.schema.json', () => {
  it('is current (regenerate: npx tsc -p tsconfig.build.json && node scripts/write-schema.mjs)', () => {
    const onDisk = readFileSync(join(repoRoot, 'rules/pack.schema.json'), 'utf8');
    expect(onDisk === packSchemaJson(), 'rules/pack.schema.json is stale: run node scripts/write-schema.mjs').toBe(true);
  });

  it('is what the shipped packs point editors at', () => {
    for (const pack of ['sglang', 'vllm', 'common']) {
      expect(readFileSync(join(repoRoot, `rules/${pack}.yaml`), 'utf8')).toContain('$schema=./pack.schema.json');
    }
  });
});
