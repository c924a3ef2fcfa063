/**
 * Finds which server family wrote a log, from the packs' `detect` rules. A decisive rule names a
 * line only that family prints (its launch line, its process tags) and settles it at once. A
 * clue (`clue: true`: a logger format, a module path, a message wording) only counts: a log is
 * that family's when it shows enough distinct clues of it and few of any other. Anything less is
 * no decision: the log is then read with the shared rules only, never on a guess.
 */
import { guardFrames } from './line-guard.js';
import type { CompiledPack } from './pack-types.js';

/** How many physical lines detection reads before it settles for what it has. */
export const DETECT_LINES = 400;
/** Distinct clues of one family that decide, when no other family shows as many as half. */
export const CLUES_TO_DECIDE = 2;

/** What the lines read so far say about the family. */
export type FamilyEvidence = 'none' | 'some' | 'decided';

export class FamilyDetector {
  /** Per family, the ids of the clue rules seen. */
  private readonly clues = new Map<string, Set<string>>();
  private lines = 0;
  private decided: CompiledPack | undefined;

  constructor(private readonly packs: readonly CompiledPack[]) {}

  get result(): CompiledPack | undefined {
    return this.decided;
  }

  get evidence(): FamilyEvidence {
    if (this.decided) return 'decided';
    return this.clues.size > 0 ? 'some' : 'none';
  }

  /** Feeds a line; returns the pack once the lines decide it. */
  push(line: string): CompiledPack | undefined {
    if (this.decided) return this.decided;
    this.lines++;
    for (const frame of guardFrames(line)) {
      for (const pack of this.packs) {
        for (const rule of pack.detect) {
          if (!rule.regex.test(frame)) continue;
          if (!rule.clue) return (this.decided = pack);
          const seen = this.clues.get(pack.name) ?? new Set<string>();
          seen.add(rule.id);
          this.clues.set(pack.name, seen);
        }
      }
    }
    this.decided = this.byClues();
    return this.decided;
  }

  /** Detection has read enough lines to stop waiting for a decision. */
  get exhausted(): boolean {
    return this.lines >= DETECT_LINES;
  }

  private byClues(): CompiledPack | undefined {
    const counts = this.packs.map((pack) => ({ pack, count: this.clues.get(pack.name)?.size ?? 0 })).sort((a, b) => b.count - a.count);
    const [first, second] = counts;
    if (!first || first.count < CLUES_TO_DECIDE) return undefined;
    return 2 * (second?.count ?? 0) < first.count ? first.pack : undefined;
  }
}
