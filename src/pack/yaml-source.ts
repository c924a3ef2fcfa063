/** Parses a pack's YAML keeping positions, so every problem can be located at file:line:col. */
import type { Document, LineCounter, Node } from 'yaml';
import type { Diagnostic } from './diagnostic.js';
import { yamlModule } from './yaml-module.js';

export interface YamlSource {
  file: string;
  text: string;
  document: Document.Parsed;
  lines: LineCounter;
}

export function parseYamlSource(file: string, text: string): { source: YamlSource; diagnostics: Diagnostic[] } {
  const { LineCounter, parseDocument } = yamlModule();
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const diagnostics: Diagnostic[] = [];
  for (const error of document.errors) {
    const pos = error.linePos?.[0] ?? lines.linePos(error.pos[0]);
    const code = error.code === 'DUPLICATE_KEY' ? 'pack/duplicate-key' : 'pack/yaml-syntax';
    diagnostics.push({ file, line: pos.line, column: pos.col, severity: 'error', code, message: firstLine(error.message) });
  }
  return { source: { file, text, document, lines }, diagnostics };
}

/** The node at a path (`['stages', 3, 'markers']`), or the deepest ancestor that exists. */
export function nodeAt(source: YamlSource, path: readonly (string | number)[]): { node: Node | undefined; key?: Node } {
  const { isMap, isScalar, isSeq } = yamlModule();
  let node: unknown = source.document.contents;
  let key: Node | undefined;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
      if (!pair) break;
      key = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node)) {
      const next = node.items[Number(part)];
      if (next === undefined) break;
      key = undefined;
      node = next;
    } else {
      break;
    }
  }
  return { node: node as Node | undefined, key };
}

/** 1-based line and column of an offset in the file. */
export function position(source: YamlSource, offset: number): { line: number; column: number } {
  const pos = source.lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}

export function positionOf(source: YamlSource, path: readonly (string | number)[], which: 'key' | 'value' = 'value'): { line: number; column: number } {
  const { node, key } = nodeAt(source, path);
  const target = which === 'key' && key ? key : node;
  const offset = target?.range?.[0] ?? 0;
  return position(source, offset);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
