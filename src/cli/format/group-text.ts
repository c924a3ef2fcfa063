/** The verdict block of a multi-node start: the group's word, the node it names, then that node's own block. */
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { GroupVerdict, NodeSummary } from '../../core/group-types.js';
import { namedVerdict } from '../../core/group-verdicts.js';
import { formatVerdict } from './verdict-text.js';
import { clip, shownText } from './shown-text.js';

export function formatGroupVerdict(group: GroupVerdict, options: { color: boolean; family?: string }): string {
  const c = pc.createColors(options.color);
  // The rows below the group's are its named node's own (their `why` is that node's reason).
  const [, ...body] = formatVerdict({ ...namedVerdict(group), reason: group.detail?.reason ?? group.reason }, options).split('\n');
  const family = options.family ? ` ${c.dim(options.family)}` : '';
  const of = `of ${group.nodes.length}`;
  const detail = group.detail;
  const header = {
    ready: `${c.bold(c.green('READY'))}${family}  group of ${group.nodes.length} nodes, after ${formatDuration(detail?.elapsedMs ?? group.elapsedMs)}`,
    failed: `${c.bold(c.red('FAILED'))}${family}  node ${group.node} ${of}: ${c.bold(detail?.cause ?? 'unknown')}: ${shownText(detail?.message ?? group.reason)}`,
    stalled: `${c.bold(c.yellow('STALLED'))}${family}  node ${group.node} ${of}, in stage ${c.bold(group.stage)}`,
    incomplete: `${c.bold(c.cyan('INCOMPLETE'))}${family}  group ${of}: the input ended before any verdict (node ${group.node} furthest behind, in stage ${group.stage})`,
  }[group.verdict];
  const shown = group.stalledNode !== undefined && group.stalledNode !== group.node ? `; the rows below are node ${group.stalledNode}'s` : '';
  const rows = [row(c, 'group', `${shownText(group.reason)}${shown}`), ...body];
  for (const aside of group.setAside) {
    const v = aside.verdict;
    const line = v.evidence[0] ?? v.decidedBy;
    const where = line ? ` line ${line.lineNo}: ${clip(line.text.trim(), 120)}` : '';
    rows.push(row(c, 'set aside', `node ${aside.node}: ${v.cause ?? 'unknown'} (${shownText(v.message ?? v.reason)})${where}`));
  }
  rows.push(row(c, 'nodes', `${group.nodes.map(describeNode).join(' · ')}; expected ${group.expected} (${sizeWords(group.expectedFrom)})`));
  return [header, ...rows].join('\n');
}

function describeNode(node: NodeSummary): string {
  if (!node.joined) return `${node.node} not seen yet`;
  const state = node.lost ? 'lost' : (node.verdict ?? 'running');
  return `${node.node} ${state} in ${node.stage}`;
}

function sizeWords(from: GroupVerdict['expectedFrom']): string {
  return { option: '--group-size', log: 'from the log', command: 'the server command\'s --nnodes', env: 'from LWS_GROUP_SIZE/SLURM_NNODES', nodes: 'the nodes given' }[from];
}

function row(c: ReturnType<typeof pc.createColors>, label: string, value: string): string {
  return `  ${c.dim(label.padEnd(10))} ${value}`;
}
