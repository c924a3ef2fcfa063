/** Ctrl-C (or SIGTERM) during a replay: the cases not yet replayed are left. */
export class ReplayInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'ReplayInterrupted';
  }
}
