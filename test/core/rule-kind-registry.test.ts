/**
 * The rule-kind registry is the one place that lists the kinds (issue 12): a new kind is its
 * schema fragment (src/pack/schema.ts), its entry in core/rule-kinds.ts and its compile step
 * (core/compile-pack.ts), and no other file has to learn it. Checked here on the code itself,
 * with the TypeScript checker, so that the word `ready` in a verdict or `progress` in an event
 * is not mistaken for the kind: a file names a kind when it reads a kind's list or match slot by
 * its key (`pack.heartbeats`, `source.failures`, `match.marker`), or compares a kind-typed value
 * with a kind's name (`entry.kind === 'ready'`).
 *
 *  - The modules that run every line kind (matching, the prefilter, the classifier's dispatch,
 *    the skippable answer, explain and coverage hits, the build-time pattern table) name none:
 *    they take what they do from the registry.
 *  - No other file names more than three kinds (by their YAML lists, of eleven): one that names
 *    more is a list of the kinds, and a new kind would have to join it. The modules that carry out
 *    a kind's meaning name the few they reason about: weigh-failures.ts the failure rules, the
 *    benign ones that set them aside and the inference tables; explain's reasons a held ready,
 *    the failures of the symptoms and the benign look-alikes.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LINE_KINDS, RULE_KINDS } from '../../src/core/rule-kinds.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/** The registry: the kinds' table, the schema and the compiler; pack-source.ts is generated from the schema. */
const REGISTRY = new Set(['core/rule-kinds.ts', 'pack/schema.ts', 'core/compile-pack.ts', 'core/pack-source.ts']);
/** The modules that run every line kind and must take all they do from the registry. */
const DISPATCH = ['core/match-frame.ts', 'core/prefilter.ts', 'core/classifier.ts', 'core/skippable.ts', 'replay/frame-hits.ts', 'pack/precompile-packs.ts'];

/**
 * Besides its YAML key (RULE_KINDS' `list`), the names a kind's rules and hits go by: the list
 * under each stage, the compiled lists and the slots of a frame's match.
 */
const OTHER_NAMES: Partial<Record<string, string[]>> = {
  stage: ['markers', 'marker'],
  ready: ['confirmsReady'],
  heartbeat: ['heartbeat'],
  start_facts: ['startFacts'],
};
/** The types whose properties are the kinds' lists and slots. */
const HOLDERS = new Set(['PackSource', 'StageSource', 'CompiledPack', 'CompiledKinds', 'FrameMatch', 'InferenceSource']);

/**
 * Each name, and each kind's own name, to the YAML list it stands for: kinds are counted by their
 * list, so the cause-inference layer (`inference:`, whose tables hold three kinds) counts once.
 */
const namesOf = new Map<string, string>();
for (const entry of RULE_KINDS) {
  for (const name of [entry.list, ...(OTHER_NAMES[entry.kind] ?? [])]) if (!namesOf.has(name)) namesOf.set(name, entry.list);
}
const listOfKind = new Map<string, string>(RULE_KINDS.map((entry) => [entry.kind, entry.list]));
const kindNames = new Set<string>(listOfKind.keys());

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Naming {
  /** The kind's YAML list. */
  list: string;
  line: number;
  text: string;
}

/** Every place each source file names a kind. */
function namings(): Map<string, Naming[]> {
  const files = sources(SRC);
  const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const found = new Map<string, Naming[]>();

  const holds = (type: ts.Type): boolean => {
    const parts = type.isUnion() ? type.types : [type];
    return parts.some((part) => {
      const name = (part.aliasSymbol ?? part.getSymbol())?.getName();
      if (name !== undefined && HOLDERS.has(name)) return true;
      return (part.getBaseTypes?.() ?? []).some(holds) || (part.isIntersection() && part.types.some(holds));
    });
  };
  /** A union of string literals of which three or more name kinds (RuleKind, RuleList, a list of lists). */
  const isKindTyped = (type: ts.Type): boolean => {
    const literals = (type.isUnion() ? type.types : [type]).filter((t) => t.isStringLiteral()).map((t) => (t as ts.StringLiteralType).value);
    return literals.filter((value) => kindNames.has(value) || namesOf.has(value)).length >= 3;
  };

  for (const sourceFile of program.getSourceFiles()) {
    if (!sourceFile.fileName.startsWith(SRC)) continue;
    const name = relative(SRC, sourceFile.fileName).split('\\').join('/');
    const list: Naming[] = [];
    const note = (node: ts.Node, named: string | undefined): void => {
      if (named === undefined) return;
      const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
      list.push({ list: named, line: line + 1, text: node.getText(sourceFile).slice(0, 80) });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && namesOf.has(node.name.text) && holds(checker.getTypeAtLocation(node.expression))) {
        note(node, namesOf.get(node.name.text));
      } else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && namesOf.has(node.argumentExpression.text) && holds(checker.getTypeAtLocation(node.expression))) {
        note(node, namesOf.get(node.argumentExpression.text));
      } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const key = node.propertyName && ts.isIdentifier(node.propertyName) ? node.propertyName.text : ts.isIdentifier(node.name) ? node.name.text : undefined;
        if (key !== undefined && namesOf.has(key) && holds(checker.getTypeAtLocation(node.parent))) note(node, namesOf.get(key));
      } else if (ts.isStringLiteralLike(node) && (kindNames.has(node.text) || namesOf.has(node.text))) {
        const parent = node.parent;
        const other =
          ts.isBinaryExpression(parent) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(parent.operatorToken.kind)
            ? parent.left === node
              ? parent.right
              : parent.left
            : ts.isCaseClause(parent) && ts.isSwitchStatement(parent.parent.parent)
              ? parent.parent.parent.expression
              : undefined;
        const type = other ? checker.getTypeAtLocation(other) : checker.getContextualType(node);
        if (type && isKindTyped(type)) note(node, kindNames.has(node.text) ? listOfKind.get(node.text) : namesOf.get(node.text));
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    found.set(name, list);
  }
  return found;
}

const found = namings();
const listsIn = (file: string): string[] => [...new Set((found.get(file) ?? []).map((n) => n.list))].sort();
const where = (file: string, lists: ReadonlySet<string> = new Set(namesOf.values())): string[] =>
  (found.get(file) ?? []).filter((n) => lists.has(n.list)).map((n) => `${file}:${n.line} ${n.list}: ${n.text}`);
/** The YAML lists of the kinds matched against every frame. */
const LINE_LISTS = new Set(LINE_KINDS.map((kind) => listOfKind.get(kind.kind)!));

describe('the rule-kind registry', () => {
  it('sees the code (the checker finds the kinds where the registry names them)', () => {
    expect(found.size).toBeGreaterThan(150);
    for (const file of DISPATCH) expect(found.has(file), file).toBe(true);
    expect(listsIn('core/compile-pack.ts').length).toBeGreaterThan(8);
    expect(listsIn('core/rule-kinds.ts')).toEqual(expect.arrayContaining([...LINE_LISTS]));
    // The modules that carry out one kind's meaning are seen naming it.
    expect(listsIn('core/follow-stages.ts')).toEqual([]);
    expect(listsIn('core/weigh-failures.ts')).toEqual(['failures', 'inference']);
    expect(listsIn('core/source-messages.ts')).toEqual(['benign', 'failures', 'inference']);
  });

  it('says which kinds are matched frame by frame in one place: the gated kinds are the line kinds', () => {
    const gated = RULE_KINDS.filter((entry) => entry.fastPath === 'gated').map((entry) => entry.kind);
    expect([...new Set(LINE_KINDS.map((kind) => kind.kind))].sort()).toEqual([...gated].sort());
  });

  it.for(DISPATCH)('%s names no line kind: it runs every kind from the registry', (file) => {
    expect(where(file, LINE_LISTS)).toEqual([]);
  });

  it('no file outside the registry names more than three kinds (none is a list of them)', () => {
    const lists = [...found.keys()].filter((file) => !REGISTRY.has(file) && listsIn(file).length > 3);
    expect(lists.flatMap((file) => where(file))).toEqual([]);
  });
});
