/** `spinup probe URL|ID [--startup|--ready|--live]`: an exec probe, for clusters that prefer them. */
import { EXIT } from '../../core/exit-codes.js';
import { apiGet, type ApiTarget } from '../../serve/api-client.js';
import type { StatusSnapshot } from '../../status/status-snapshot.js';
import { verdictLineText } from '../../status/status-text.js';
import { UsageError } from '../errors.js';
import { parseOptions } from '../parse-options.js';
import { write, type Io } from '../io-context.js';
import { shownText } from '../format/shown-text.js';
import { durationOption } from '../options.js';
import { findRun } from '../find-run.js';

export const probeHelp = `Usage: spinup probe URL|ID [--startup|--ready|--live] [--timeout DURATION]

Asks a running 'spinup watch --listen' or 'spinup run --listen' (URL, e.g.
http://127.0.0.1:9464) or a start on this host (its ID or pid, over its unix socket)
one question, prints one line and exits 0 (yes) or 1 (no, or no answer):
  --startup   has the start become READY?           (GET /startupz)
  --ready     is it READY now, with nothing fatal since? (GET /readyz; the default)
  --live      is spinup itself running?             (GET /livez)
For a Kubernetes exec probe:
  startupProbe: { exec: { command: [spinup, probe, http://127.0.0.1:9464, --startup] } }
An httpGet probe on the same paths needs no exec at all (see examples/kubernetes/).

Options:
  --timeout DURATION  how long to wait for the answer (default 2s)
  -h, --help          show this help

Exit: 0 yes · 1 no, or unreachable · 64 usage · 66 no such start ID on this host`;

const PATHS = { startup: '/startupz', ready: '/readyz', live: '/livez' } as const;

export async function probeCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: { startup: { type: 'boolean' }, ready: { type: 'boolean' }, live: { type: 'boolean' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    write(io.stdout, `${probeHelp}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError('name one URL (http://HOST:PORT) or start ID to probe');
  const asked = (['startup', 'ready', 'live'] as const).filter((k) => values[k]);
  if (asked.length > 1) throw new UsageError('ask one question: --startup, --ready or --live');
  const question = asked[0] ?? 'ready';
  const timeoutMs = durationOption('timeout', values.timeout) ?? 2_000;
  const { target, shown } = targetOf(io, positionals[0]!);
  try {
    const answer = await apiGet(target, PATHS[question], timeoutMs);
    const yes = answer.status === 200;
    write(io.stdout, `${question} ${yes ? 'yes' : 'no'} (HTTP ${answer.status}): ${shownText(describe(question, answer.body))}\n`);
    return yes ? EXIT.ok : EXIT.failed;
  } catch (error) {
    write(io.stdout, `${question} no: cannot reach ${shown}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return EXIT.failed;
  }
}

function targetOf(io: Io, given: string): { target: ApiTarget; shown: string } {
  if (/^[a-z]+:\/\//i.test(given)) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new UsageError(`"${given}" is not a URL`);
    }
    if (url.protocol !== 'http:') throw new UsageError(`probe speaks plain http:// (the status API has no TLS), not ${url.protocol}`);
    return { target: { url: url.origin }, shown: url.origin };
  }
  const { run } = findRun(io, given);
  if (!run.socket) throw new UsageError(`start ${run.id} has no socket`);
  return { target: { socket: run.socket }, shown: `start ${run.id}` };
}

function describe(question: string, body: string): string {
  if (question === 'live') return 'spinup is running';
  try {
    return verdictLineText(JSON.parse(body) as StatusSnapshot);
  } catch {
    return body.trim().slice(0, 200) || 'no body';
  }
}
