/**
 * The real READY starts the conformance suite builds its cases in: three eras of each family.
 * A fatal case is a host cut at the entry's stage with a traceback ending in the entry's example;
 * a survivable case is a whole host with the example injected at its stage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompiledPack } from '../core/pack-types.js';
import { STAGES, type Stage } from '../core/vocabulary.js';
import { classifyText, logLines } from '../replay/run-case.js';
import { LOG_STYLES, type HostTime, type LogStyle, type LogStyleName } from './log-styles.js';

/** Fixture (under fixtures/, without `.log`) and how its era prints a traceback. */
export const HOST_TABLE: readonly { fixture: string; style: LogStyleName }[] = [
  { fixture: 'vllm/52-v0261rc1-newest-ready', style: 'vllm-tagged' },
  { fixture: 'vllm/02-v085post1-smollm-single-gpu-ready', style: 'vllm-v1' },
  { fixture: 'vllm/51-v072-v0-tp2-turing-xformers-ready', style: 'vllm-v0' },
  { fixture: 'sglang/45-docs-ci-2026-04-single-gpu-qwen25-piecewise-cudagraph-ready', style: 'sglang' },
  { fixture: 'sglang/42-docs-ci-2025-08-eagle3-llama31-8b-ready', style: 'sglang' },
  { fixture: 'sglang/09-tp4-l4-qwq32b-ready-health-polls', style: 'sglang-tp' },
];

export interface Host {
  fixture: string;
  style: LogStyle;
  lines: string[];
  /** The index of the first line of each stage the start entered. */
  stageStarts: Map<Stage, number>;
  /** What spinup says of the whole host (the baseline a survivable injection must keep). */
  baseline: { verdict: string; stage: string; decidedBy?: string };
}

export function loadHosts(fixturesDir: string, packs: readonly CompiledPack[]): Host[] {
  return HOST_TABLE.map(({ fixture, style }) => {
    const text = readFileSync(join(fixturesDir, `${fixture}.log`), 'utf8');
    const lines = logLines(text);
    const { verdict, events } = classifyText(text, { packs, keepEvents: true });
    const stageStarts = new Map<Stage, number>();
    for (const event of events) {
      if (event.type === 'stage' && event.line && !stageStarts.has(event.stage)) stageStarts.set(event.stage, event.line.lineNo - 1);
    }
    return { fixture, style: LOG_STYLES[style], lines, stageStarts, baseline: { verdict: verdict.verdict, stage: verdict.stage, decidedBy: verdict.decidedBy?.text } };
  });
}

/** The line index a case cuts (or injects) at: the stage's first line, or the nearest earlier stage the host has. */
export function stageLine(host: Host, stage: Stage | undefined): number {
  const wanted = STAGES.indexOf(stage ?? 'load_weights');
  for (let i = wanted; i >= 0; i--) {
    const at = host.stageStarts.get(STAGES[i]!);
    if (at !== undefined) return at;
  }
  return 0;
}

/** The host's clock at line `index`: the last timestamp at or before it. */
export function timeAt(host: Host, index: number): HostTime {
  for (let i = index; i >= 0; i--) {
    const t = host.style.timeOf(host.lines[i]!);
    if (t) return t;
  }
  return { year: '2025', month: '01', day: '01', hms: '00:00:00' };
}
