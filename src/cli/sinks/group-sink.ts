/**
 * What a multi-node start prints, as one of its outputs: every node's events with its node (one
 * line per stage change, or one JSON object per event with a `node` field), then the group's
 * verdict. `watch` of several logs prints it all here; `run`'s head prints its own server's lines
 * and messages itself (run-sink.ts) and the group's here.
 */
import type { Writable } from 'node:stream';
import pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { GroupEvent } from '../../core/group-types.js';
import type { Session, SessionEvent } from '../../core/session.js';
import { verdictStream, write, type Io } from '../io-context.js';
import { groupEventJson } from '../format/group-json.js';
import { formatGroupVerdict } from '../format/group-text.js';
import { shownText } from '../format/shown-text.js';
import { noticeText } from '../reporters/event-lines.js';
import type { Sink, SourceNotice, VerdictReport } from './sink.js';
import { nodeFailureObject } from './verdict-object.js';

export type GroupReportMode = 'lines' | 'json' | 'quiet';

/** Where the group's words differ between `watch` of the nodes and `run`'s head. */
const ROLES = {
  /** The verdict block on stdout, as a one-log watch prints it; the family the nodes' logs named. */
  watch: { verdictTo: (io: Io): Writable => io.stdout, familyFromNodes: true, messages: true },
  /** On stderr like the rest of `run`'s words (stdout when stderr is closed); the run's family; its messages are the run's. */
  head: { verdictTo: verdictStream, familyFromNodes: false, messages: false },
} as const;

export class GroupSink implements Sink {
  private readonly c: ReturnType<typeof pc.createColors>;
  private readonly families = new Map<number, string>();
  private readonly role: (typeof ROLES)[keyof typeof ROLES];
  private readonly io: Io;
  private readonly mode: GroupReportMode;

  constructor(
    private readonly options: {
      io: Io;
      mode: GroupReportMode;
      color: boolean;
      role: keyof typeof ROLES;
      /** The head's own session: its family, for the verdict block. */
      session?: Session;
    },
  ) {
    this.c = pc.createColors(options.color);
    this.role = ROLES[options.role];
    this.io = options.io;
    this.mode = options.mode;
  }

  groupEvents(events: readonly GroupEvent[]): void {
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

  notice(notice: SourceNotice, node?: number): void {
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify({ type: 'notice', node, notice: notice.type, path: notice.path, detail: notice.detail })}\n`);
    else if (this.mode === 'lines') {
      const text = ['rank', 'push', 'command-restart', 'command-died', 'earlier-verdict'].includes(notice.type) ? (notice.detail ?? notice.type) : noticeText(notice);
      write(this.io.stderr, `${this.c.dim('spinup:')} ${node === undefined ? '' : `node ${node}: `}${text}\n`);
    }
  }

  message(text: string): void {
    if (!this.role.messages) return;
    if (this.mode === 'json') write(this.io.stdout, `${JSON.stringify({ type: 'message', text })}\n`);
    else write(this.io.stderr, `${text}\n`);
  }

  /**
   * The group's verdict block (in JSON, its `group_verdict` event said it), or a node's failure
   * after the group was READY: a block naming the node, or a `verdict` line with its `node`.
   */
  verdict(report: VerdictReport): void {
    const { group } = report;
    if (!group) return;
    const afterReady = report.node !== undefined;
    if (this.mode === 'json') {
      if (afterReady) write(this.io.stdout, `${JSON.stringify(nodeFailureObject(report, this.options.session?.pack?.name))}\n`);
      return;
    }
    const family = this.role.familyFromNodes ? (this.families.get(group.node ?? group.head) ?? [...this.families.values()][0]) : this.options.session?.pack?.name;
    write(this.role.verdictTo(this.io), `${formatGroupVerdict(group, { color: this.options.color, family })}\n`);
  }

  async close(): Promise<void> {}

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
