/** Where a start stands, in one line: for the TTY status line, Ctrl-C and timeouts. */
import type pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { Session } from '../../core/session.js';
import { suspectOf } from '../../core/suspect.js';
import { statusInsight } from '../../history/status-insight.js';
import { clip } from '../format/shown-text.js';

type Colors = ReturnType<typeof pc.createColors>;

/** Stage, time in stage, last progress, what is usual, total time; undefined before the first line. */
export function statusText(session: Session, c: Colors): string | undefined {
  const state = session.classifier?.state;
  if (!state || state.startedAt === undefined) return undefined;
  const now = session.now;
  const insight = statusInsight(session, now);
  const progress = insight.progress
    ? ` (${insight.progress})`
    : state.progress
      ? ` (${state.progress.unit} ${state.progress.current}${state.progress.total !== undefined ? `/${state.progress.total}` : ''})`
      : '';
  const usual = `${insight.usual ? ` · ${insight.usual}` : ''}${insight.ready ? ` · ${insight.ready}` : ''}`;
  const pending = suspectOf(state);
  const suspect = pending ? ` · ${c.yellow(`suspect: ${pending.cause}`)}${pending.line ? ` (line ${pending.line.lineNo})` : ''}` : '';
  return `${c.bold(state.stage)} ${formatDuration(now - state.stageSince)}${progress}${usual}${suspect} · total ${formatDuration(now - state.startedAt)}`;
}

/** The status line, or what was seen so far, and the last line. */
export function standing(session: Session, c: Colors): string {
  const state = session.classifier?.state;
  const waiting = session.linesBeforeFamily;
  const status = statusText(session, c) ?? (waiting > 0 ? `${waiting} line(s) seen, none yet says which server wrote them` : 'no log line seen yet');
  const last = state?.lastLine ? `\n  last line ${state.lastLine.lineNo}: ${clip(state.lastLine.text, 200)}` : '';
  return `${status}${last}`;
}
