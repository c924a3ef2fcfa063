/**
 * Test helper: a captured log as a log collector shows it, each line behind the collector's own
 * receipt time (`kubectl logs --timestamps`, `docker logs -t`, `journalctl -o short-iso`).
 * The time given to a line is the log's own (its last server timestamp, which lines without one
 * inherit), shifted by the collector's zone: collectors print UTC, servers their local time.
 */
export type Collector = 'kubectl' | 'docker' | 'journald' | 'journald-short';

const FULL = /\b(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/;
const YEARLESS = /\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})/;

function serverTime(line: string, year: number): number | undefined {
  const full = FULL.exec(line);
  if (full) return Date.UTC(+full[1]!, +full[2]! - 1, +full[3]!, +full[4]!, +full[5]!, +full[6]!);
  const md = YEARLESS.exec(line);
  if (md) return Date.UTC(year, +md[1]! - 1, +md[2]!, +md[3]!, +md[4]!, +md[5]!);
  return undefined;
}

function stamp(collector: Collector, ms: number, index: number): string {
  const iso = new Date(ms).toISOString().slice(0, 19);
  if (collector === 'journald') return `${iso}+0000 gpu-node-7 python3[41233]: `;
  if (collector === 'journald-short') {
    // `journalctl`'s default: `Mar 10 16:21:32 host ident[pid]: `, the day padded with a space.
    const date = new Date(ms);
    const month = date.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
    return `${month} ${String(date.getUTCDate()).padStart(2, ' ')} ${iso.slice(11)} gpu-node-7 python3[41233]: `;
  }
  // Nanoseconds that keep lines within one second in order, as a collector's do.
  return `${iso}.${String((index * 7919) % 1_000_000_000).padStart(9, '0')}Z `;
}

export function behindCollector(text: string, collector: Collector, options: { zoneHours?: number; year?: number } = {}): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const year = options.year ?? 2025;
  const shift = (options.zoneHours ?? 0) * 3_600_000;
  let last = lines.map((line) => serverTime(line, year)).find((ms) => ms !== undefined) ?? Date.UTC(year, 0, 1);
  const out = lines.map((line, index) => {
    last = serverTime(line, year) ?? last;
    return stamp(collector, last + shift, index) + line;
  });
  return out.join('\n') + '\n';
}
