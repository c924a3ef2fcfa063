/** Durations as people write them in packs and flags (`90s`, `5m`, `1h30m`, `250ms`), in milliseconds. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** Parses `1h30m`, `45s`, `2.5m`, `500ms`; a bare number means seconds. Returns undefined when unparsable. */
export function parseDuration(text: string): number | undefined {
  const source = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(source)) return Number(source) * 1000;
  if (source === '') return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < source.length) {
    const start = PART.lastIndex;
    const match = PART.exec(source);
    if (!match || match.index !== start) return undefined;
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
  }
  return total;
}

/** Formats milliseconds the way a person reads a stopwatch: `850ms`, `42s`, `3m12s`, `1h05m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${Math.round(abs)}ms`;
  const totalSeconds = Math.round(abs / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${sign}${hours}h${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${sign}${minutes}m${String(seconds).padStart(2, '0')}s`;
  return `${sign}${seconds}s`;
}
