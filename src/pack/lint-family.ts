/** Checks across a family pack and the packs it includes: ids, stage references, compilation. */
import type { MarkerRuleSource, ProgressRuleSource } from '../core/pack-types.js';
import type { Stage } from '../core/vocabulary.js';
import { PackError, breadcrumb, type Diagnostic } from './diagnostic.js';
import { compileFiles, type PackFile } from './load-pack.js';
import { packRules } from './pack-rules.js';
import { positionOf } from './yaml-source.js';

/** `files[0]` is the family (or the pack linted on its own), the rest its includes. */
export function lintFamily(files: readonly PackFile[]): Diagnostic[] {
  return [...duplicateIds(files), ...unlistedStages(files)];
}

function duplicateIds(files: readonly PackFile[]): Diagnostic[] {
  const seen = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    for (const entry of packRules(file.data)) {
      const path = [...entry.path, 'id'];
      const pos = positionOf(file.source, path);
      const where = `${file.source.file}:${pos.line}:${pos.column}`;
      const first = seen.get(entry.rule.id);
      if (first === undefined) {
        seen.set(entry.rule.id, where);
        continue;
      }
      diagnostics.push({
        file: file.source.file,
        ...pos,
        severity: 'error',
        code: 'pack/duplicate-id',
        message: `Duplicate rule id "${entry.rule.id}": already defined at ${first}. Ids must be unique across a pack and its includes; rename one.`,
        path: breadcrumb(path),
      });
    }
  }
  return diagnostics;
}

/** Stages a rule moves to must be ones the family lists: its list is the family's startup order. */
function unlistedStages(files: readonly PackFile[]): Diagnostic[] {
  const family = files[0];
  // A shared pack linted on its own lists no stages; the families that include it are checked instead.
  if (!family?.data.stages || family.data.stages.length === 0) return [];
  const listed = new Set<Stage>(family.data.stages.map((s) => s.stage));
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    for (const entry of packRules(file.data)) {
      const field = entry.kind === 'progress' ? 'stage' : entry.kind === 'stage' ? 'reenter_from' : undefined;
      if (field === undefined) continue;
      const stage = (entry.rule as ProgressRuleSource & MarkerRuleSource)[field];
      if (stage === undefined || listed.has(stage)) continue;
      const path = [...entry.path, field];
      const verb = field === 'stage' ? 'enters' : 're-enters from';
      diagnostics.push({
        file: file.source.file,
        ...positionOf(file.source, path),
        severity: 'error',
        code: 'pack/unlisted-stage',
        message: `Rule ${entry.rule.id} ${verb} stage "${stage}", which pack ${family.data.pack} does not list in its stages (it lists: ${[...listed].join(', ')}). Add the stage, or name a listed one.`,
        path: breadcrumb(path),
      });
    }
  }
  return diagnostics;
}

/** The last word: what the loader itself would refuse (a pattern V8 rejects that the checks let through). */
export function compileProblems(files: PackFile[]): Diagnostic[] {
  try {
    compileFiles(files);
    return [];
  } catch (error) {
    if (error instanceof PackError) return error.diagnostics;
    return [{ file: files[0]?.source.file ?? '?', line: 1, column: 1, severity: 'error', code: 'pack/invalid', message: String((error as Error).message ?? error) }];
  }
}
