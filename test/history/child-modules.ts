/**
 * Child processes cannot import TypeScript on Node 20: this transpiles the store's modules
 * (and what they import) into a scratch directory as plain ES modules, so several real
 * processes can append to one history at once.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const MODULES = ['src/history/history-store.ts', 'src/history/file-lock.ts', 'src/history/start-record.ts', 'src/core/vocabulary.ts', 'src/io/wall-clock.ts'];

/** Returns the path of the transpiled history-store.js. */
export function transpileStore(into: string): string {
  for (const file of MODULES) {
    const { outputText } = ts.transpileModule(readFileSync(join(root, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const out = join(into, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  writeFileSync(join(into, 'package.json'), '{"type":"module"}\n');
  return join(into, 'src/history/history-store.js');
}
