/** Finds which server family wrote a log, from its first lines. */
import { guardFrames } from './line-guard.js';
import type { CompiledPack } from './pack-types.js';

/** How many physical lines detection reads before it settles for its best guess. */
export const DETECT_LINES = 400;

export class FamilyDetector {
  private readonly scores = new Map<string, number>();
  private lines = 0;
  private decided: CompiledPack | undefined;

  constructor(private readonly packs: readonly CompiledPack[]) {}

  get result(): CompiledPack | undefined {
    return this.decided;
  }

  /** Feeds a line; returns the pack once a family's own marker is seen. */
  push(line: string): CompiledPack | undefined {
    if (this.decided) return this.decided;
    this.lines++;
    for (const frame of guardFrames(line)) {
      for (const pack of this.packs) {
        for (const rule of pack.detect) {
          // Detection rules name lines only one family prints, so the first hit settles it.
          if (rule.regex.test(frame)) {
            this.scores.set(pack.name, (this.scores.get(pack.name) ?? 0) + 1);
            this.decided = pack;
            return pack;
          }
        }
      }
    }
    return undefined;
  }

  /** Detection has read enough lines to stop waiting for a decisive marker. */
  get exhausted(): boolean {
    return this.lines >= DETECT_LINES;
  }

  /** The best guess so far: most detection hits, else the first pack. */
  guess(): { pack: CompiledPack; certain: boolean } {
    if (this.decided) return { pack: this.decided, certain: true };
    let best = this.packs[0]!;
    for (const pack of this.packs) if ((this.scores.get(pack.name) ?? 0) > (this.scores.get(best.name) ?? 0)) best = pack;
    return { pack: best, certain: (this.scores.get(best.name) ?? 0) > 0 };
  }
}
