#!/usr/bin/env node
// Writes rules/pack.schema.json and src/core/pack-source.ts (the pack's TS types) from
// src/pack/schema.ts (compiled: run `npx tsc -p tsconfig.build.json` first, or `npm run schema`).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { packSchemaJson } = await import(new URL('../dist/pack/schema-json.js', import.meta.url).href);
const { packSourceTypes } = await import(new URL('../dist/pack/schema-types.js', import.meta.url).href);
for (const [target, text] of [
  [`${root}rules/pack.schema.json`, packSchemaJson()],
  [`${root}src/core/pack-source.ts`, packSourceTypes()],
]) {
  writeFileSync(target, text);
  console.log(`wrote ${target.slice(root.length)}`);
}
