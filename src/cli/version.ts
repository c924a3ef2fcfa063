/** The version of this installation, read once from package.json. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function version(): string {
  if (cached) return cached;
  try {
    const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');
    cached = (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    cached = 'unknown';
  }
  return cached;
}
