/** `spinup history --from URL` as text: per model, its starts, each stage's p50/p95 and the failure causes by count. Pure. */
import { formatDuration } from '../core/duration.js';
import { STAGES, type Stage } from '../core/vocabulary.js';
import type { FleetFigures, FleetModel, FleetStage } from './fleet-queries.js';

export function formatFleet(figures: FleetFigures, shown: (text: string) => string = (t) => t): string {
  const head = `The fleet at ${figures.url}, over ${figures.window}: ${figures.models.length} model${figures.models.length === 1 ? '' : 's'}\n`;
  if (figures.models.length === 0) return `${head}(no start scraped from spinup's /metrics in that window)\n`;
  return `${head}\n${sorted(figures.models).map((m) => modelBlock(m, shown)).join('\n')}`;
}

function sorted(models: FleetModel[]): FleetModel[] {
  return [...models].sort((a, b) => a.family.localeCompare(b.family) || a.model.localeCompare(b.model));
}

function modelBlock(m: FleetModel, shown: (text: string) => string): string {
  const all = Object.values(m.verdicts ?? {}).reduce((sum, n) => sum + n, 0);
  const ready = m.verdicts?.ready ?? m.starts;
  const counts = all > ready ? `${ready} ready of ${all} starts` : `${ready} ready start${ready === 1 ? '' : 's'}`;
  const others = Object.entries(m.verdicts ?? {}).filter(([v]) => v !== 'ready');
  const verdicts = others.length > 0 ? ` (${others.map(([v, n]) => `${n} ${v}`).join(', ')})` : '';
  const total = m.total && Number.isFinite(m.total.p50Ms) ? `; to READY p50 ${span(m.total.p50Ms)}, p95 ${span(m.total.p95Ms)}` : '';
  const title = `${m.family} ${shown(m.model)}: ${counts}${verdicts}${total}`;
  const rows = STAGES.filter((s): s is Stage => m.stages[s] !== undefined).map((stage) => {
    const s = m.stages[stage] as FleetStage;
    return [`  ${stage}`, String(s.starts), span(s.p50Ms), span(s.p95Ms)];
  });
  const stages = rows.length > 0 ? table([['  stage', 'starts', 'p50', 'p95'], ...rows], [false, true, true, true]) : '';
  const causes = Object.entries(m.causes ?? {}).sort((a, b) => b[1] - a[1]);
  const failures = causes.length > 0 ? `  failures: ${causes.map(([cause, n]) => `${cause} ${n}`).join(', ')}\n` : '';
  return `${title}\n${stages}${failures}`;
}

function span(ms: number): string {
  return ms === 0 ? '0s' : formatDuration(ms);
}

function table(rows: string[][], right: boolean[]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) => row.map((cell, col) => (right[col] ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!))).join('  ').trimEnd()).join('\n').concat('\n');
}
