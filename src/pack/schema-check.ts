/** Validates a parsed pack against the JSON Schema and turns ajv's errors into located diagnostics. */
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { breadcrumb, type Diagnostic } from './diagnostic.js';
import { didYouMean } from './did-you-mean.js';
import { packSchema } from './schema.js';
import { positionOf, type YamlSource } from './yaml-source.js';

let validator: ValidateFunction | undefined;

// ajv (CommonJS) is required on first use: a shipped pack checked at build time never needs it.
function validate(): ValidateFunction {
  if (!validator) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    validator = new Ajv({ allErrors: true, strict: false, verbose: true }).compile(packSchema);
  }
  return validator;
}

export function checkSchema(source: YamlSource, data: unknown): Diagnostic[] {
  const check = validate();
  if (check(data)) return [];
  return withoutEchoes(dedupe((check.errors ?? []).filter(relevant).map((error) => toDiagnostic(source, error))));
}

// A misspelt required key shows up twice: as unknown ("markrs") and as missing ("markers").
// The did-you-mean says it all; the missing-key echo only distracts.
function withoutEchoes(diagnostics: Diagnostic[]): Diagnostic[] {
  const guessed = new Set(
    diagnostics.flatMap((d) => {
      const match = /Did you mean "([^"]+)"\?$/.exec(d.message);
      return d.code === 'pack/unknown-key' && match ? [`${d.path}|${match[1]}`] : [];
    }),
  );
  return diagnostics.filter((d) => {
    const missing = /^Missing key "([^"]+)"/.exec(d.message);
    return !(d.code === 'pack/missing-key' && missing && guessed.has(`${d.path}|${missing[1]}`));
  });
}

// `enum` and `type` errors on the same value say the same thing; ajv also reports `if`-style noise.
function relevant(error: ErrorObject): boolean {
  return error.keyword !== 'if' && error.keyword !== 'anyOf';
}

function toDiagnostic(source: YamlSource, error: ErrorObject): Diagnostic {
  const path = error.instancePath.split('/').slice(1).map(unescape);
  const where = breadcrumb(path) || 'the pack';
  const base = { file: source.file, severity: 'error' as const, path: where };
  const found = describe(valueAt(source, path));
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(error.params.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      const guess = didYouMean(key, known);
      const pos = positionOf(source, [...path, key], 'key');
      const hint = guess ? ` Did you mean "${guess}"?` : ` Known keys: ${known.join(', ')}.`;
      return { ...base, ...pos, code: 'pack/unknown-key', message: `Unknown key "${key}" in ${where}.${hint}` };
    }
    case 'required': {
      const key = String(error.params.missingProperty);
      return { ...base, ...positionOf(source, path), code: 'pack/missing-key', message: `Missing key "${key}" in ${where}.` };
    }
    case 'enum': {
      const allowed = (error.params.allowedValues as unknown[]).map(String);
      const guess = typeof valueAt(source, path) === 'string' ? didYouMean(String(valueAt(source, path)), allowed) : undefined;
      const hint = guess ? ` Did you mean "${guess}"?` : ` Expected one of: ${allowed.join(', ')}.`;
      return { ...base, ...positionOf(source, path), code: `pack/unknown-${enumKind(path)}`, message: `Unknown ${enumKind(path)} ${found} at ${where}.${hint}` };
    }
    case 'type':
      return { ...base, ...positionOf(source, path), code: 'pack/wrong-type', message: `Expected ${String(error.params.type)} at ${where}, found ${found}.` };
    case 'pattern':
      return { ...base, ...positionOf(source, path), code: patternCode(path), message: `${patternProblem(path)} at ${where}: found ${found}.` };
    default:
      return { ...base, ...positionOf(source, path), code: 'pack/invalid', message: `${where} ${error.message ?? 'is invalid'}; found ${found}.` };
  }
}

function enumKind(path: string[]): string {
  const last = path[path.length - 1];
  if (last === 'cause') return 'cause';
  if (last === 'stage' || last === 'reenter_from') return 'stage';
  if (last === 'role') return 'role';
  return 'value';
}

function patternCode(path: string[]): string {
  const last = path[path.length - 1];
  if (last === 'id') return 'pack/bad-id';
  if (last === 'pack') return 'pack/bad-name';
  return 'pack/bad-duration';
}

function patternProblem(path: string[]): string {
  const code = patternCode(path);
  if (code === 'pack/bad-id') return 'A rule id must look like `pack/rule-name` (lower case, digits, dashes)';
  if (code === 'pack/bad-name') return 'A pack name must be lower case letters, digits and dashes';
  return 'Unparsable duration (write `90s`, `5m`, `1h30m`)';
}

function valueAt(source: YamlSource, path: string[]): unknown {
  return source.document.getIn(path.map((p) => (/^\d+$/.test(p) ? Number(p) : p)));
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  // A binary or huge value would flood the terminal: the start of it says enough.
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'object') return Array.isArray(value) || (value as { items?: unknown }).items ? 'a collection' : 'an object';
  return `${typeof value} ${String(value)}`;
}

function unescape(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}

function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.line}:${d.column}:${d.code}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
