/**
 * A status snapshot for people: the one-line status `attach` keeps updated (the same words as
 * `watch`'s status line) and the one line `probe` prints.
 */
import { formatDuration } from '../core/duration.js';
import { formatRate } from '../core/eta.js';
import type { StatusSnapshot } from './status-snapshot.js';

/** `load_weights 1m02s (41/163 shards, 2.2/s, ~55s left) · total 3m10s`. */
export function statusLineText(status: StatusSnapshot): string {
  const p = status.progress;
  let progress = '';
  if (p) {
    const parts = [p.unit === '%' ? `${p.current}%` : p.total !== null ? `${p.current}/${p.total} ${p.unit}` : `${p.current} ${p.unit}`];
    if (p.rate_per_s !== null && p.rate_per_s > 0) parts.push(formatRate(p.rate_per_s));
    if (p.eta_ms !== null && p.total !== null && p.current < p.total) parts.push(`~${formatDuration(p.eta_ms)} left`);
    progress = ` (${parts.join(', ')})`;
  } else if (status.load_progress) {
    progress = ` (${status.load_progress.text})`;
  }
  const suspect = status.suspect ? ` · suspect: ${status.suspect.cause}${status.suspect.line === null ? '' : ` (line ${status.suspect.line})`}` : '';
  const ready = status.eta_ready_ms != null ? ` · ready in ~${formatDuration(status.eta_ready_ms)}` : '';
  return `${status.stage} ${formatDuration(status.stage_elapsed_ms)}${progress}${suspect}${ready} · total ${formatDuration(status.elapsed_ms)}`;
}

/** `ready after 4m12s`, `failed: gpu_oom (sglang/cuda-oom) in cuda_graph after 3m`, `pending: load_weights 1m02s ...`. */
export function verdictLineText(status: StatusSnapshot): string {
  const model = status.model ? ` ${status.model}` : '';
  switch (status.verdict) {
    case 'ready':
      return status.after_ready_failure
        ? `failed after ready${model}: ${status.after_ready_failure.cause} (${status.after_ready_failure.rule})`
        : `ready${model} after ${formatDuration(status.elapsed_ms)}`;
    case 'failed':
      return `failed${model}: ${status.cause ?? 'unknown'}${status.rule ? ` (${status.rule})` : ''} in ${status.stage} after ${formatDuration(status.elapsed_ms)}`;
    case 'stalled':
      return `stalled${model} in ${status.stage} after ${formatDuration(status.elapsed_ms)}${status.reason ? `: ${status.reason}` : ''}`;
    case 'incomplete':
      return `incomplete${model}: the log ended in ${status.stage} with no verdict`;
    default:
      return `starting${model}: ${statusLineText(status)}`;
  }
}
