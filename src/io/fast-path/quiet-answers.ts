/**
 * Core's answers to `Skippable.quietText`, remembered by line text: while the pack and the scope
 * stay the same the answer depends on the text alone (core/skippable.ts), and the lines that
 * hold a literal yet match nothing come back by the ten thousand (each NCCL rank's
 * `NVLS multicast support is not available on dev 0`). Bounded: a log's few repeated shapes are
 * kept, not its variety.
 */
import type { CompiledPack } from '../../core/pack-types.js';
import type { QuietScope } from '../../core/prefilter.js';
import type { Skippable } from '../../core/skippable.js';

/** Texts remembered at most; then all are forgotten and the hot ones come back at once. */
const MAX_ANSWERS = 256;

export class QuietAnswers {
  private readonly answers = new Map<string, boolean>();
  private pack: CompiledPack | undefined;
  private scope: QuietScope | undefined;

  /** Core's `quietText(text)` now, from memory when the same text was asked about in the same pack and scope. */
  quiet(now: Skippable, text: string): boolean {
    if (now.pack !== this.pack || now.scope !== this.scope) {
      this.answers.clear();
      this.pack = now.pack;
      this.scope = now.scope;
    }
    const known = this.answers.get(text);
    if (known !== undefined) return known;
    const quiet = now.quietText(text);
    if (this.answers.size >= MAX_ANSWERS) this.answers.clear();
    this.answers.set(text, quiet);
    return quiet;
  }
}
