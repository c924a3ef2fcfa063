/**
 * Bench rows (h) for the single executable (`npm run sea`, issue 27): its size, the first start
 * that writes its tree into an empty cache dir, and the cold start of a watch once it is there,
 * beside the package's bin run by node (row g's command) on the same small log.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, median } from './measure.mjs';

export function seaExecutable(root) {
  return join(root, 'dist', `spinup-${process.platform}-${process.arch}`);
}

/** { bytes, firstStartMs, watchMedianMs, binMedianMs, watchCpuMs, binCpuMs, runs }, or undefined when the executable was not built. */
export async function seaRows({ root, bin, log, runs }) {
  const exe = seaExecutable(root);
  if (!existsSync(exe)) return undefined;
  const cache = mkdtempSync(join(tmpdir(), 'spinup-bench-sea-'));
  try {
    const env = { XDG_CACHE_HOME: cache };
    const first = await measure(exe, ['--version'], { env });
    const sea = [];
    const node = [];
    for (let i = 0; i < runs; i++) {
      sea.push(await measure(exe, ['watch', '--no-follow', log], { env }));
      node.push(await measure(bin, ['watch', '--no-follow', log]));
    }
    const mid = (samples, key) => (samples.every((s) => typeof s[key] === 'number') ? Math.round(median(samples.map((s) => s[key])) * 10) / 10 : null);
    return {
      bytes: statSync(exe).size,
      firstStartMs: Math.round(first.wallMs),
      watchMedianMs: mid(sea, 'wallMs'),
      binMedianMs: mid(node, 'wallMs'),
      watchCpuMs: mid(sea, 'cpuMs'),
      binCpuMs: mid(node, 'cpuMs'),
      runs,
    };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

export function describeSeaRow(row) {
  if (row === undefined) return '(h) single executable: skipped (no dist/spinup-*; npm run sea builds it)';
  return `(h) single executable ${(row.bytes / 1e6).toFixed(1)} MB; first start (unpacks its tree) ${row.firstStartMs} ms; cold start watch --no-follow ${row.watchMedianMs} ms median of ${row.runs} vs node dist/cli/bin.cjs ${row.binMedianMs} ms; CPU ${row.watchCpuMs ?? '?'} ms vs ${row.binCpuMs ?? '?'} ms`;
}
