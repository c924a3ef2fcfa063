/** Exit codes of the design contract, by name. */
export const EXIT = {
  ready: 0,
  ok: 0,
  failed: 1,
  stalled: 2,
  incomplete: 3,
  usage: 64,
  noInput: 66,
  /** `--listen`: the address is taken (EADDRINUSE) or not ours to bind (EACCES). */
  unavailable: 69,
  internal: 70,
  badPack: 78,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
