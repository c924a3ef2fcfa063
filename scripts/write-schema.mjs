#!/usr/bin/env node
// Writes rules/pack.schema.json from src/pack/schema.ts (compiled: run `npx tsc -p tsconfig.build.json` first).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { packSchemaJson } = await import(new URL('../dist/pack/schema-json.js', import.meta.url).href);
const target = `${root}rules/pack.schema.json`;
writeFileSync(target, packSchemaJson());
console.log(`wrote ${target.slice(root.length)}`);
