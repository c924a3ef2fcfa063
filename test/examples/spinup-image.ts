/**
 * Test helper: examples/kubernetes/image/Dockerfile read as the three facts the examples rely on
 * (its base, its one file, its entrypoint), for a check that stays offline (no docker here).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SpinupImage {
  base: string;
  /** The COPY instructions: [source in the build context, destination in the image]. */
  copies: [string, string][];
  /** The entrypoint in exec form. */
  entrypoint: string[];
  /** Every instruction keyword, in order (FROM, COPY, ENTRYPOINT). */
  instructions: string[];
}

export function readSpinupImage(root: string): SpinupImage {
  const lines = readFileSync(join(root, 'examples/kubernetes/image/Dockerfile'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const words = lines.map((line) => /^(\S+)\s+(.*)$/.exec(line)!.slice(1) as [string, string]);
  const of = (keyword: string) => words.filter(([k]) => k.toUpperCase() === keyword).map(([, rest]) => rest);
  return {
    base: of('FROM')[0] ?? '',
    copies: of('COPY').map((rest) => rest.split(/\s+/) as [string, string]),
    entrypoint: JSON.parse(of('ENTRYPOINT')[0] ?? '[]') as string[],
    instructions: words.map(([k]) => k.toUpperCase()),
  };
}
