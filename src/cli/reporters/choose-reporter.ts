/** The edge where a live command picks its reporter, once, from its flags and the terminal. */
import type { Session } from '../../core/session.js';
import type { Io } from '../io-context.js';
import { JsonReporter } from './json-reporter.js';
import type { Sink } from '../sinks/sink.js';
import { LinesReporter, QuietReporter, StatusLineReporter } from './text-reporters.js';

export type ReportFormat = 'status' | 'lines' | 'json' | 'quiet';

export function reportFormat(flags: { json?: boolean; quiet?: boolean }, statusLine: boolean): ReportFormat {
  if (flags.json) return 'json';
  if (flags.quiet) return 'quiet';
  return statusLine ? 'status' : 'lines';
}

export function liveReporter(params: { format: ReportFormat; io: Io; session: Session; color: boolean; sinceLaunchMs?: () => number }): Sink {
  const { format, io, session, color, sinceLaunchMs } = params;
  switch (format) {
    case 'json':
      return new JsonReporter(io, session);
    case 'quiet':
      return new QuietReporter(io, session, color, sinceLaunchMs);
    case 'status':
      return new StatusLineReporter(io, session, color, sinceLaunchMs);
    case 'lines':
      return new LinesReporter(io, session, color, sinceLaunchMs);
  }
}
