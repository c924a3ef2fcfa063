/** What a start's learned budgets and ETA rest on, in words: `spinup status`, /v1/status and the verdict say it. */
import type { LearnBasis } from './learn-budgets.js';

export interface LearnedJson {
  source: LearnBasis['source'];
  fleet_starts: number;
  local_starts: number;
  /** The Prometheus asked (`--learn-from`), whether or not it taught. */
  fleet_url: string | null;
  text: string;
}

export function basisText(basis: LearnBasis, fleet?: { url: string; window: string; problem?: string }): string {
  const starts = (n: number): string => `${n} start${n === 1 ? '' : 's'}`;
  const fleetWords = fleet ? `the fleet (${fleet.url}, ${fleet.window})` : 'the fleet';
  const unused = !fleet ? '' : fleet.problem ? `; the fleet was not used: ${fleet.problem}` : `; ${fleetWords} has no READY start of this model`;
  switch (basis.source) {
    case 'fleet':
      return `learned from ${fleetWords}: ${starts(basis.fleetStarts)} of this model`;
    case 'fleet+local':
      return `learned from ${fleetWords}: ${starts(basis.fleetStarts)} of this model, and ${starts(basis.localStarts)} on this host`;
    case 'local':
      return `learned from this host's history: ${starts(basis.localStarts)}${unused}`;
    case 'pack':
      return `the pack's budgets (no earlier start of this model to learn from)${unused}`;
  }
}
