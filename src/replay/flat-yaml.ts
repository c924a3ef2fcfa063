/**
 * The shape nearly every `.expect.yaml` has, read without a YAML parser: top-level `key: value`
 * lines whose values are one-line scalars (plain, 'single' or "double" quoted without escapes),
 * flow lists of plain words (`[a, b]`), or block lists of such scalars (`- a` lines under `key:`).
 *
 * Why: replaying an archive of 10,000 logs spent ~15% of its time in the `yaml` package on
 * these files. Anything outside the shape (a comment, a continued line, an escape, a number or
 * `null` the YAML core schema would type, a repeated key) returns undefined, and the caller
 * parses the file with the `yaml` package as before, so a file reads the same either way.
 */

export type FlatValue = string | number | FlatValue[];

/** The mapping, or undefined when the text is not of the flat shape (parse it as YAML then). */
export function parseFlatYaml(text: string): Record<string, FlatValue> | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  const lines = text.split('\n');
  const result: Record<string, FlatValue> = {};
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!;
    if (line.trim() === '') continue;
    const match = KEY_LINE.exec(line);
    if (!match) return undefined;
    const key = match[1]!;
    // A repeated key is an error to YAML; `__proto__` would not be a key of a plain object.
    if (Object.hasOwn(result, key) || key === '__proto__') return undefined;
    const rest = match[2] ?? '';
    let value: FlatValue | undefined;
    if (rest === '') {
      // A block list: the `- item` lines that follow, at one indentation.
      const items: FlatValue[] = [];
      let indent: string | undefined;
      while (at + 1 < lines.length) {
        const item = ITEM_LINE.exec(lines[at + 1]!);
        if (!item || (indent !== undefined && item[1] !== indent)) break;
        indent = item[1];
        const scalar = flatScalar(item[2]!);
        if (scalar === undefined) return undefined;
        items.push(scalar);
        at++;
      }
      // `key:` with nothing under it is YAML's null: not this shape.
      if (items.length === 0) return undefined;
      value = items;
    } else if (rest.startsWith('[')) {
      value = flowList(rest);
    } else {
      value = flatScalar(rest);
    }
    if (value === undefined) return undefined;
    result[key] = value;
  }
  // An empty file is YAML's null, not an empty mapping.
  return Object.keys(result).length > 0 ? result : undefined;
}

/** `key: value` or `key:` at the start of a line. */
const KEY_LINE = /^([a-z_]+):(?: +(.*?))? *$/;
/** `- value` of a block list. */
const ITEM_LINE = /^( *)- +(.*?) *$/;
/** A plain word in a flow list. */
const WORD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Plain scalars the YAML core schema would read as null, a boolean or a number. */
const TYPED = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** A whole number: the one typed scalar read here (a group's `node:`). */
const WHOLE = /^[0-9]+$/;
/** Characters a plain scalar may not start with (YAML's indicators). */
const INDICATORS = new Set(['-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);

function flatScalar(text: string): string | number | undefined {
  if (text === '') return undefined;
  const first = text[0]!;
  if (first === "'") {
    if (text.length < 2 || !text.endsWith("'")) return undefined;
    const inner = text.slice(1, -1);
    // A lone quote inside would end the string early: not this shape.
    if (inner.replaceAll("''", '').includes("'")) return undefined;
    return inner.replaceAll("''", "'");
  }
  if (first === '"') {
    if (text.length < 2 || !text.endsWith('"')) return undefined;
    const inner = text.slice(1, -1);
    return inner.includes('"') || inner.includes('\\') ? undefined : inner;
  }
  if (INDICATORS.has(first)) return undefined;
  // A mapping inside the value, or a comment after it.
  if (text.includes(': ') || text.endsWith(':') || text.includes(' #')) return undefined;
  if (TYPED.test(text)) return WHOLE.test(text) ? Number(text) : undefined;
  return text;
}

function flowList(text: string): FlatValue[] | undefined {
  if (!text.endsWith(']')) return undefined;
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const items = inner.split(',').map((item) => item.trim());
  return items.every((item) => WORD.test(item) && !TYPED.test(item)) ? items : undefined;
}
