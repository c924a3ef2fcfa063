/**
 * `/metrics`: a status snapshot in the Prometheus text exposition format 0.0.4. Written by hand:
 * ten gauges and a counter of one start need no client library, and this way the text is a pure
 * function of the snapshot (tested against `promtool check metrics`). Conventions: `spinup_`
 * prefix, base units (seconds, ratios), `_total` only on the counter, and a state as one 0/1
 * series per value (as kube-state-metrics does for a pod's phase), every series labelled with
 * family and model. Once the start has a verdict, two histograms of its durations follow
 * (status/startup-histograms.ts): what a fleet's Prometheus learns budgets and ETAs from.
 */
import { STAGES } from '../core/vocabulary.js';
import { STATUS_VERDICTS, type StatusSnapshot } from './status-snapshot.js';
import { startupHistograms } from './startup-histograms.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Record<string, string>;

interface Family {
  name: string;
  type: 'gauge' | 'counter' | 'histogram';
  help: string;
  /** `suffix`: a histogram's `_bucket`, `_sum` or `_count`. */
  samples: { labels?: Labels; value: number; suffix?: string }[];
}

export function metricsText(status: StatusSnapshot): string {
  const base: Labels = { family: status.family ?? 'unknown', model: status.model ?? 'unknown' };
  const seconds = (ms: number): number => ms / 1000;
  const families: Family[] = [
    { name: 'spinup_build_info', type: 'gauge', help: 'The spinup version serving these metrics; always 1.', samples: [{ labels: { version: status.version }, value: 1 }] },
    {
      name: 'spinup_start_verdict',
      type: 'gauge',
      help: 'The verdict on the start: 1 for the current one (pending until there is one), 0 for the others.',
      samples: STATUS_VERDICTS.map((verdict) => ({ labels: { verdict }, value: status.verdict === verdict ? 1 : 0 })),
    },
    {
      name: 'spinup_start_stage',
      type: 'gauge',
      help: 'The startup stage entered last: 1 for it, 0 for the others.',
      samples: STAGES.map((stage) => ({ labels: { stage }, value: status.stage === stage ? 1 : 0 })),
    },
    {
      name: 'spinup_start_failure_info',
      type: 'gauge',
      help: 'Why the start failed (cause and rule id); present only once it has.',
      samples: status.verdict === 'failed' ? [{ labels: { cause: status.cause ?? 'unknown', rule: status.rule ?? '' }, value: 1 }] : [],
    },
    {
      name: 'spinup_stage_duration_seconds',
      type: 'gauge',
      help: 'Time spent in each stage the start has left behind.',
      samples: status.stages.map((s) => ({ labels: { stage: s.stage }, value: seconds(s.duration_ms) })),
    },
    { name: 'spinup_stage_elapsed_seconds', type: 'gauge', help: 'Time in the current stage (frozen at the verdict).', samples: [{ value: seconds(status.stage_elapsed_ms) }] },
    {
      name: 'spinup_stage_budget_seconds',
      type: 'gauge',
      help: 'Stall budget of the current stage: this long without progress is STALLED.',
      samples: status.budget ? [{ value: seconds(status.budget.ms) }] : [],
    },
    {
      name: 'spinup_progress_ratio',
      type: 'gauge',
      help: 'Progress of the current stage (shards loaded, graphs captured), 0 to 1, when the log shows it.',
      samples: status.progress?.ratio != null ? [{ value: status.progress.ratio }] : [],
    },
    {
      name: 'spinup_load_read_bytes',
      type: 'gauge',
      help: 'Bytes the server\'s processes read in load_weights (Linux /proc, under run or watch --pid).',
      samples: status.load_progress ? [{ value: status.load_progress.read_bytes }] : [],
    },
    {
      name: 'spinup_load_checkpoint_bytes',
      type: 'gauge',
      help: 'Size of the checkpoint being loaded (its weight files on this host), when known.',
      samples: status.load_progress?.total_bytes != null ? [{ value: status.load_progress.total_bytes }] : [],
    },
    {
      name: 'spinup_load_read_bytes_per_second',
      type: 'gauge',
      help: 'Recent read rate of the server\'s processes in load_weights.',
      samples: status.load_progress?.bytes_per_second != null ? [{ value: status.load_progress.bytes_per_second }] : [],
    },
    { name: 'spinup_start_elapsed_seconds', type: 'gauge', help: 'Time from the first log line of the start (frozen at the verdict).', samples: [{ value: seconds(status.elapsed_ms) }] },
    { name: 'spinup_log_lines_total', type: 'counter', help: 'Log lines read so far (the number of the latest line the classifier has read).', samples: [{ value: status.lines }] },
    ...nodeFamilies(status),
    ...startupHistograms(status).map((h): Family => ({ ...h, type: 'histogram' })),
  ];
  let text = '';
  for (const family of families) {
    if (family.samples.length === 0) continue;
    text += `# HELP ${family.name} ${family.help}\n# TYPE ${family.name} ${family.type}\n`;
    for (const sample of family.samples) text += `${family.name}${sample.suffix ?? ''}${labelText({ ...base, ...sample.labels })} ${numberText(sample.value)}\n`;
  }
  return text;
}

/** A multi-node head: one series per node, labelled node_rank (none for a single start). */
function nodeFamilies(status: StatusSnapshot): Family[] {
  const nodes = status.group?.nodes ?? [];
  if (nodes.length === 0) return [];
  const rank = (n: { node_rank: number }): Labels => ({ node_rank: String(n.node_rank) });
  return [
    { name: 'spinup_group_nodes_expected', type: 'gauge', help: 'How many nodes the multi-node start should have.', samples: [{ value: status.group!.expected }] },
    { name: 'spinup_node_up', type: 'gauge', help: 'A node of the group has joined and is still reporting: 1, else 0.', samples: nodes.map((n) => ({ labels: rank(n), value: n.joined && !n.lost ? 1 : 0 })) },
    {
      name: 'spinup_node_verdict',
      type: 'gauge',
      help: "A node's own verdict: 1 for the current one, 0 for the others.",
      samples: nodes.flatMap((n) => STATUS_VERDICTS.map((verdict) => ({ labels: { ...rank(n), verdict }, value: n.verdict === verdict ? 1 : 0 }))),
    },
    {
      name: 'spinup_node_stage',
      type: 'gauge',
      help: 'The stage a node of the group entered last: 1 for it, 0 for the others.',
      samples: nodes.flatMap((n) => STAGES.map((stage) => ({ labels: { ...rank(n), stage }, value: n.stage === stage ? 1 : 0 }))),
    },
  ];
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabel(value)}"`);
  return `{${pairs.join(',')}}`;
}

/** The format's three escapes in a label value: backslash, double quote, line feed. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(Math.round(value * 1000) / 1000);
}
