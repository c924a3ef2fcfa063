/**
 * Maps an index into a YAML scalar's value back to its place in the file, so a problem found
 * in a pattern (`(?<=` at index 12) is reported at its own column, past quotes and escapes.
 */
import type { Node } from 'yaml';
import { yamlModule } from './yaml-module.js';

/** File offset of character `index` of the scalar's value; the scalar's start when unknown. */
export function scalarOffset(text: string, node: Node | undefined, index: number): number {
  const { isScalar, Scalar } = yamlModule();
  if (!node || !isScalar(node) || !node.range) return node?.range?.[0] ?? 0;
  const [start, end] = node.range;
  switch (node.type) {
    case Scalar.QUOTE_SINGLE:
      return walk(text, start + 1, end, index, (i) => (text.startsWith("''", i) ? 2 : 1));
    case Scalar.QUOTE_DOUBLE:
      return walk(text, start + 1, end, index, (i) => (text[i] === '\\' ? escapeLength(text[i + 1]) : 1));
    case Scalar.BLOCK_LITERAL:
    case Scalar.BLOCK_FOLDED:
      return blockOffset(text, start, end, index);
    default:
      return walk(text, start, end, index, () => 1);
  }
}

/** Steps over `index` value characters; a run of white space holding a line break folds to one. */
function walk(text: string, from: number, end: number, index: number, width: (i: number) => number): number {
  let i = from;
  for (let k = 0; k < index && i < end; k++) {
    const fold = /^[ \t]*\r?\n[ \t\r\n]*/.exec(text.slice(i, Math.min(end, i + 200)));
    i += fold ? fold[0].length : width(i);
  }
  return Math.min(i, end);
}

function escapeLength(next: string | undefined): number {
  if (next === 'x') return 4;
  if (next === 'u') return 6;
  if (next === 'U') return 10;
  return 2;
}

/** Block scalars: content lines after the header, each less its indentation; a line break is one character. */
function blockOffset(text: string, start: number, end: number, index: number): number {
  const headerEnd = text.indexOf('\n', start);
  if (headerEnd < 0 || headerEnd >= end) return start;
  const body = text.slice(headerEnd + 1, end);
  const indent = /^[ ]*/.exec(body.split('\n').find((line) => line.trim() !== '') ?? '')![0].length;
  let offset = headerEnd + 1;
  let left = index;
  for (const line of body.split('\n')) {
    const content = line.length - Math.min(indent, line.length);
    if (left <= content) return offset + Math.min(indent, line.length) + left;
    left -= content + 1;
    offset += line.length + 1;
  }
  return start;
}
