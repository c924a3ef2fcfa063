/**
 * What `watch` prints for a multi-node start: every node's events with its node (one line per
 * stage change, or one JSON object per event with a `node` field), then the group's verdict.
 */
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { GroupEvent, GroupVerdict } from '../../core/group-types.js';
import type { SessionEvent } from '../../core/session.js';
import { namedVerdict } from '../../core/group-verdicts.js';
import { write, type Io } from '../io-context.js';
import { formatGroupVerdict } from './group-text.js';
import { shownText } from './shown-text.js';
import { eventJson, verdictJson } from './verdict-json.js';
import { noticeText } from '../reporters/event-lines.js';

export type GroupReportMode = 'lines' | 'json' | 'quiet';

export class GroupReporter {
  private readonly c: ReturnType<typeof pc.createColors>;
  private readonly families = new Map<number, string>();

  constructor(
    private readonly io: Io,
    private readonly mode: GroupReportMode,
    private readonly color: boolean,
  ) {
    this.c = pc.createColors(color);
  }

  events(events: readonly GroupEvent[]): void {
    for (const event of events) {
      // A family only the shared rules stand for (too few lines to tell) names no server.
      if (event.type === 'node' && event.event.type === 'family' && event.event.certain) this.families.set(event.node, event.event.family);
      if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify(groupEventJson(event))}\n`);
      else if (this.mode === 'lines') {
        const text = this.describe(event);
        if (text) write(this.io.stderr, `${text}\n`);
      }
    }
  }

  notice(node: number | undefined, notice: { type: string; path?: string; detail?: string }): void {
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify({ type: 'notice', node, notice: notice.type, path: notice.path, detail: notice.detail })}\n`);
    else if (this.mode === 'lines') {
      const text = ['rank', 'push', 'command-restart', 'command-died', 'earlier-verdict'].includes(notice.type) ? (notice.detail ?? notice.type) : noticeText(notice);
      write(this.io.stderr, `${this.c.dim('spinup:')} ${node === undefined ? '' : `node ${node}: `}${text}\n`);
    }
  }

  message(text: string): void {
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify({ type: 'message', text })}\n`);
    else write(this.io.stderr, `${text}\n`);
  }

  verdict(verdict: GroupVerdict): void {
    if (this.mode === 'json') return; // printed with the events
    const family = this.families.get(verdict.node ?? verdict.head) ?? [...this.families.values()][0];
    write(this.io.stdout, `${formatGroupVerdict(verdict, { color: this.color, family })}\n`);
  }

  private describe(event: GroupEvent): string | undefined {
    const at = (ms: number): string => `[${formatDuration(ms).padStart(6)}]`;
    const node = (n: number): string => this.c.bold(`node ${n}`);
    switch (event.type) {
      case 'joined':
        return `${at(event.at)} ${node(event.node)} joined`;
      case 'size':
        return `${this.c.dim('spinup:')} the log says the group has ${event.expected} nodes`;
      case 'waiting':
        return `${at(event.at)} the head is ready; waiting for node${event.missing.length > 1 ? 's' : ''} ${event.missing.join(', ')} to join`;
      case 'node-lost':
        return `${at(event.at)} ${node(event.node)} ${this.c.red('lost')}: ${shownText(event.verdict.reason)}`;
      case 'after-ready-failure':
        return `${at(event.at)} ${node(event.node)} ${this.c.red('failed after ready')}: ${shownText(event.verdict.message ?? event.verdict.reason)}`;
      case 'node':
        return this.describeNodeEvent(event.node, event.at, event.event);
      case 'group-verdict':
        return undefined;
    }
  }

  private describeNodeEvent(n: number, groupAt: number, event: SessionEvent): string | undefined {
    const prefix = `[${formatDuration(groupAt).padStart(6)}] ${this.c.bold(`node ${n}`)}`;
    switch (event.type) {
      case 'family':
        if (event.detected && !event.certain) return `${this.c.dim('spinup:')} node ${n}: family not known: its lines do not say which server this is; only the shared rules apply (--pack names it)`;
        return `${this.c.dim('spinup:')} node ${n}: family ${event.family}${event.detected ? ' (detected)' : ''}`;
      case 'stage':
        return `${prefix} stage ${this.c.bold(event.stage)}${event.reentered ? ' (again)' : ''}  ${this.c.dim(`line ${event.line.lineNo}`)}`;
      case 'warning':
        return `${prefix} ${this.c.yellow('warning')} ${shownText(event.message)}  ${this.c.dim(`line ${event.line.lineNo}`)}`;
      case 'restart':
        return `${prefix} a new run starts at line ${event.line.lineNo}`;
      case 'after-ready-failure':
        return `${prefix} ${this.c.red('crash after ready')}: ${shownText(event.message)}  ${this.c.dim(`line ${event.line.lineNo}`)}`;
      case 'verdict': {
        const v = event.verdict;
        const what = v.verdict === 'failed' ? `${v.cause ?? 'unknown'}: ${shownText(v.message ?? v.reason)}` : `in stage ${v.stage}`;
        const line = v.verdict === 'failed' ? (v.evidence[0] ?? v.decidedBy) : v.decidedBy;
        return `${prefix} ${v.verdict.toUpperCase()} ${what}${line ? `  ${this.c.dim(`line ${line.lineNo}`)}` : ''}`;
      }
      default:
        return undefined;
    }
  }
}

/**
 * One JSON object per group event. A node's events keep their own shape plus `node` (its own
 * verdict too: `verdict` with `node`, one lane per node for the report); the group's answer is
 * the last line, `group_verdict`.
 */
export function groupEventJson(event: GroupEvent): Record<string, unknown> {
  switch (event.type) {
    case 'node': {
      const { type, ...rest } = eventJson(event.event);
      return { type, node: event.node, group_at_ms: event.at, ...rest };
    }
    case 'joined':
      return { type: 'node_joined', node: event.node, group_at_ms: event.at };
    case 'size':
      return { type: 'group_size', expected: event.expected, from: event.from, group_at_ms: event.at };
    case 'waiting':
      return { type: 'waiting', missing: event.missing, group_at_ms: event.at };
    case 'node-lost':
      return { type: 'node_lost', node: event.node, group_at_ms: event.at, ...verdictJson(event.verdict) };
    case 'after-ready-failure':
      return { type: 'after_ready_failure', node: event.node, group_at_ms: event.at, ...verdictJson(event.verdict) };
    case 'group-verdict':
      return groupVerdictJson(event.verdict);
  }
}

export function groupVerdictJson(group: GroupVerdict): Record<string, unknown> {
  return {
    type: 'group_verdict',
    node: group.node,
    ...verdictJson(namedVerdict(group)),
    group: {
      size: group.nodes.length,
      expected: group.expected,
      expected_from: group.expectedFrom,
      head: group.head,
      elapsed_ms: group.elapsedMs,
      stalled_node: group.stalledNode,
      nodes: group.nodes,
      set_aside: group.setAside.map((s) => ({ node: s.node, ...verdictJson(s.verdict) })),
    },
  };
}
