/**
 * Keeps V8's young generation small when the process was started without the bin's
 * `--max-semi-space-size=2` (`node dist/cli/bin.cjs ...`, a wrapper that drops the shebang's
 * flags). V8 reads that limit only at start-up; without it the semi-spaces grow to 16 MB each,
 * and a replay of a 10,000-log archive peaked at 113 MB against 83. The factor V8 grows them by
 * it reads each time they grow: at 1 they stay at their starting 1 MB.
 *
 * The factor is one for the whole process, and V8 raises it back to 2 as it sets up each new
 * heap, a worker thread's too (the main thread's semi-spaces then grew to 16 MB again: 138 MB on
 * two threads), so whoever starts a worker calls this again once it is online.
 */
export const SEMI_SPACE_LIMIT = '--max-semi-space-size';
const NO_GROWTH = '--semi-space-growth-factor=1';

/**
 * True when the process was started with no limit on its semi-spaces: none on its command line
 * nor in NODE_OPTIONS (a limit someone chose, larger or not, is theirs to keep). V8 takes `_` for `-`.
 */
export function semiSpacesUnlimited(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return ![...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => arg.replaceAll('_', '-').startsWith(SEMI_SPACE_LIMIT));
}

/** Stops the young generation growing where no limit was given at start-up. */
export function pinYoungGeneration(setFlagsFromString: (flags: string) => void): void {
  if (semiSpacesUnlimited()) setFlagsFromString(NO_GROWTH);
}
