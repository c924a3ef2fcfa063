/**
 * The `yaml` package, required on first use (not imported): a pack the build or the pack cache
 * already checked never meets a YAML parser, and loading one would cost every start ~20 ms.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

let yaml: Yaml | undefined;

export function yamlModule(): Yaml {
  return (yaml ??= createRequire(import.meta.url)('yaml') as Yaml);
}
