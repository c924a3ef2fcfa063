/** The one-line texts of session events and source notices, for the line reporters. */
import { HOLE_NOTICE } from '../../io/truncation-notice.js';
import type pc from 'picocolors';
import { formatDuration } from '../../core/duration.js';
import type { Session, SessionEvent } from '../../core/session.js';
import { stageNote } from '../../history/status-insight.js';
import { shownText } from '../format/shown-text.js';
import type { SourceNotice } from '../sinks/sink.js';

type Colors = ReturnType<typeof pc.createColors>;

/** A stage change, warning, restart or crash after ready; undefined for events shown otherwise. */
export function eventLine(event: SessionEvent, session: Session, c: Colors, sinceLaunchMs?: () => number): string | undefined {
  const elapsed = (at: number): string => {
    const start = session.classifier?.state.startedAt ?? at;
    return `[${formatDuration(sinceLaunchMs ? sinceLaunchMs() : at - start).padStart(6)}]`;
  };
  switch (event.type) {
    case 'family':
      if (event.detected && !event.certain) return `${c.dim('spinup:')} family not known: the lines do not say which server this is; only the shared rules apply (--pack names it)`;
      return `${c.dim('spinup:')} family ${event.family}${event.detected ? ' (detected)' : ''}`;
    case 'stage': {
      const note = stageNote(session, event.stage);
      return `${elapsed(event.at)} stage ${c.bold(event.stage)}${event.reentered ? ' (again)' : ''}  ${c.dim(`line ${event.line.lineNo}`)}${note ? `  ${c.dim(note)}` : ''}`;
    }
    case 'warning':
      return `${elapsed(event.at)} ${c.yellow('warning')} ${shownText(event.message)}  ${c.dim(`line ${event.line.lineNo}`)}`;
    case 'restart':
      return `${elapsed(event.at)} a new run starts at line ${event.line.lineNo}; earlier lines no longer count`;
    case 'after-ready-failure':
      return `${elapsed(event.at)} ${c.red('crash after ready')}: ${shownText(event.message)}  ${c.dim(`line ${event.line.lineNo}`)}`;
    default:
      return undefined;
  }
}

export function noticeText(notice: SourceNotice): string {
  const path = notice.path ?? 'the log';
  switch (notice.type) {
    case 'waiting':
      return `waiting for ${path} to appear`;
    case 'appeared':
      return `${path} appeared`;
    case 'rotated':
      return `${path} was rotated; following the new file`;
    case 'truncated':
      return notice.detail?.startsWith(HOLE_NOTICE) ? `${path} was truncated under a writer that does not append; reading on past the hole it left` : `${path} was truncated; reading it from the start`;
    case 'deleted':
      return `${path} was deleted; waiting for it to come back`;
    case 'not-a-file':
      return `${path} is not a regular file${notice.detail ? ` (${notice.detail})` : ''}; waiting`;
    case 'decoded':
      return `${path}: ${notice.detail ?? 'decoded'}`;
    case 'damaged':
      return `${path} is damaged: ${notice.detail ?? 'it cannot be read whole'}`;
    case 'serving':
      return notice.detail ?? 'serving the status API';
    case 'process':
    case 'load_progress':
      return notice.detail ?? notice.type;
    case 'unreadable':
      return `cannot read ${path}${notice.detail ? `: ${notice.detail}` : ''}; retrying`;
    default:
      return `${notice.type}${notice.detail ? `: ${notice.detail}` : ''}`;
  }
}
