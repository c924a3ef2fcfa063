/**
 * The TypeScript types of a pack as written (`src/core/pack-source.ts`), generated from the JSON
 * Schema in schema.ts: the pack's shape has one source. `npm run schema` writes both files; a
 * test fails when either is stale.
 */
import { CAUSES, STAGES } from '../core/vocabulary.js';
import { packSchema } from './schema.js';

type Schema = { [key: string]: unknown };

/** Where in the schema each named interface sits (the rest are inline types). */
const NAMES: Record<string, string> = {
  '': 'PackSource',
  timing: 'TimingSource',
  'detect[]': 'DetectRuleSource',
  'prefixes[]': 'PrefixRuleSource',
  'stages[]': 'StageSource',
  'stages[].markers[]': 'MarkerRuleSource',
  'progress[]': 'ProgressRuleSource',
  'ready[]': 'ReadyRuleSource',
  'heartbeats[]': 'HeartbeatRuleSource',
  'benign[]': 'RuleSource',
  'failures[]': 'FailureRuleSource',
  'launch[]': 'LaunchRuleSource',
  'start_facts[]': 'StartFactsRuleSource',
  inference: 'InferenceSource',
  // The four tables hold one shape of entry; remedies and symptoms are plain rules.
  'inference.words[]': 'InferenceRuleSource',
  'inference.fallback_words[]': 'InferenceRuleSource',
  'inference.classes[]': 'InferenceRuleSource',
  'inference.packages[]': 'InferenceRuleSource',
  'inference.remedies[]': 'RuleSource',
  'inference.symptoms[]': 'RuleSource',
};

export function packSourceTypes(): string {
  // By name, the first place that names it wins (benign's RuleSource, the words table's entry).
  const interfaces = new Map<string, string>();
  const typeOf = (schema: Schema, path: string): string => {
    const name = NAMES[path];
    if (name !== undefined) {
      if (!interfaces.has(name)) {
        interfaces.set(name, '');
        interfaces.set(name, interfaceText(name, schema, path));
      }
      return name;
    }
    if (Array.isArray(schema.enum)) return enumType(schema.enum);
    if (schema.type === 'array') return `${wrap(typeOf(schema.items as Schema, `${path}[]`))}[]`;
    if (schema.type === 'integer' || schema.type === 'number') return 'number';
    if (schema.type === 'boolean') return 'boolean';
    if (schema.type === 'string') return 'string';
    if (schema.type === 'object') return `{ ${fields(schema, path).join(' ')} }`;
    throw new Error(`schema-types: no type for ${path}`);
  };
  const fields = (schema: Schema, path: string, skip: ReadonlySet<string> = new Set()): string[] => {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    return Object.entries(schema.properties as Record<string, Schema>)
      .filter(([key]) => key !== '$schema' && !skip.has(key))
      .map(([key, property]) => {
        const doc = typeof property.description === 'string' ? `/** ${property.description} */\n  ` : '';
        return `${doc}${key}${required.has(key) ? '' : '?'}: ${typeOf(property, path === '' ? key : `${path}.${key}`)};`;
      });
  };
  const interfaceText = (name: string, schema: Schema, path: string): string => {
    const doc = typeof schema.description === 'string' && path !== '' ? `/** ${schema.description} */\n` : '';
    // A rule of any kind: the common fields once, in RuleSource; each kind adds its own.
    const keys = Object.keys((schema.properties as object | undefined) ?? {});
    const isRule = name !== 'RuleSource' && RULE_FIELDS.every((key) => keys.includes(key));
    const own = fields(schema, path, isRule ? new Set(RULE_FIELDS) : new Set());
    const head = `export interface ${name}${isRule ? ' extends RuleSource' : ''}`;
    if (own.length === 0) return `${doc}${head} {}\n`;
    return `${doc}${head} {\n  ${own.join('\n  ')}\n}\n`;
  };
  typeOf(packSchema as unknown as Schema, '');
  const header = `// Generated from src/pack/schema.ts by src/pack/schema-types.ts (npm run schema): edit the schema, not this file.
// The shape of a rule pack as written in YAML; core/pack-types.ts compiles it.
import type { Cause, Stage } from './vocabulary.js';
`;
  return `${header}\n${[...interfaces.values()].sort(byName).join('\n')}`;
}

const RULE_FIELDS = Object.keys((packSchema.properties.benign.items as { properties: object }).properties);

/** The vocabulary's own types where the schema lists them (causes, the stages a pack may name). */
function enumType(values: readonly unknown[]): string {
  const same = (list: readonly string[]): boolean => list.length === values.length && list.every((v, i) => v === values[i]);
  if (same(CAUSES)) return 'Cause';
  if (same(STAGES.filter((s) => s !== 'none'))) return "Exclude<Stage, 'none'>";
  return values.map((v) => `'${String(v)}'`).join(' | ');
}

function wrap(type: string): string {
  return type.includes('|') ? `(${type})` : type;
}

function byName(a: string, b: string): number {
  const name = (text: string): string => /export interface (\w+)/.exec(text)![1]!;
  return name(a).localeCompare(name(b));
}
