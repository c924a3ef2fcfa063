/**
 * The durations a fleet learns from, as Prometheus histograms: each finished stage's time
 * (`spinup_startup_stage_duration_seconds`) and the whole start's (`spinup_startup_duration_seconds`),
 * labelled with the start's verdict. One spinup follows one start, so each histogram holds one
 * observation per stage; Prometheus adds the pods up (`sum by (le)` of each series' value over a
 * window) and takes quantiles across the fleet. Observed at the verdict only: a stage passed
 * before it is final then, and every series of a start carries the verdict that says whether
 * it may teach (only READY starts do). Pure: a function of the status snapshot.
 */
import type { StatusSnapshot } from './status-snapshot.js';

/** Seconds: 1 s .. 4 h, dense where stages usually end (seconds to a few minutes). */
export const DURATION_BUCKETS_S = [1, 2, 5, 10, 20, 30, 45, 60, 90, 120, 180, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400] as const;

export const STAGE_HISTOGRAM = 'spinup_startup_stage_duration_seconds';
export const START_HISTOGRAM = 'spinup_startup_duration_seconds';

export interface HistogramSample {
  suffix: '_bucket' | '_sum' | '_count';
  labels: Record<string, string>;
  value: number;
}

export interface HistogramFamily {
  name: string;
  help: string;
  samples: HistogramSample[];
}

export function startupHistograms(status: StatusSnapshot): HistogramFamily[] {
  if (status.verdict === 'pending') return [];
  const verdict = status.verdict;
  return [
    {
      name: STAGE_HISTOGRAM,
      help: 'Time each stage of the start took, observed at its verdict (one observation per stage; sum across pods for the fleet).',
      samples: status.stages.flatMap((s) => observation(s.duration_ms / 1000, { stage: s.stage, verdict })),
    },
    {
      name: START_HISTOGRAM,
      help: 'Time from the first log line to the verdict, observed once per start.',
      samples: observation(status.elapsed_ms / 1000, { verdict }),
    },
  ];
}

/** One observation as a histogram: cumulative buckets, +Inf, sum and count. */
function observation(seconds: number, labels: Record<string, string>): HistogramSample[] {
  const buckets = DURATION_BUCKETS_S.map((le) => ({ suffix: '_bucket' as const, labels: { ...labels, le: String(le) }, value: seconds <= le ? 1 : 0 }));
  return [
    ...buckets,
    { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: 1 },
    { suffix: '_sum', labels, value: seconds },
    { suffix: '_count', labels, value: 1 },
  ];
}
