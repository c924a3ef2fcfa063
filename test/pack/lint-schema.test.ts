/** rules/pack.schema.json is generated from src/pack/schema.ts; this fails when someone forgot to regenerate it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packSchemaJson } from '../../src/pack/schema-json.js';
import { packSourceTypes } from '../../src/pack/schema-types.js';
import { repoRoot } from '../helpers/run-main.js';

describe('rules/pack.schema.json', () => {
  it('is current (regenerate: npx tsc -p tsconfig.build.json && node scripts/write-schema.mjs)', () => {
    const onDisk = readFileSync(join(repoRoot, 'rules/pack.schema.json'), 'utf8');
    expect(onDisk === packSchemaJson(), 'rules/pack.schema.json is stale: run node scripts/write-schema.mjs').toBe(true);
  });

  it('and the TS types of a pack (src/core/pack-source.ts) are generated from the same schema, and current', () => {
    const onDisk = readFileSync(join(repoRoot, 'src/core/pack-source.ts'), 'utf8');
    expect(onDisk === packSourceTypes(), 'src/core/pack-source.ts is stale: run npm run schema').toBe(true);
    // One definition: a key the schema allows is a key the types name.
    expect(onDisk).toMatch(/start_facts\?: StartFactsRuleSource\[\];/);
  });

  it('is what the shipped packs point editors at', () => {
    for (const pack of ['sglang', 'vllm', 'common']) {
      expect(readFileSync(join(repoRoot, `rules/${pack}.yaml`), 'utf8')).toContain('$schema=./pack.schema.json');
    }
  });
});
