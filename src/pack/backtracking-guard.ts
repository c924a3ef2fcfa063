/** Refuses foreign packs whose patterns backtrack exponentially; caps the input of polynomial ones. */
import { createRequire } from 'node:module';
import { PackError, type Diagnostic } from './diagnostic.js';
import type { PackFile } from './load-pack.js';
import { packRules, rulePatterns } from './pack-rules.js';
import { scalarOffset } from './scalar-offset.js';
import { nodeAt, position } from './yaml-source.js';

export { capPolynomialPatterns } from './cap-polynomial.js';

/**
 * A pack that is not ours may never have been through lint. A pattern that backtracks
 * exponentially stalls the classifier on one crafted line (no length cap helps: 40 characters
 * can take hours), so the pack is refused; one that backtracks polynomially runs on a shorter
 * input (`capPatternInput`). Shipped packs are lint-clean (a test checks it): not re-analysed.
 *
 * Returns the patterns of the foreign packs that backtrack polynomially, as
 * `capPolynomialPatterns` keys them (a pack cache keeps them); throws PackError for one that
 * backtracks exponentially.
 */
export function polynomialPatterns(foreign: PackFile[]): string[] {
  if (foreign.length === 0) return [];
  const risksOf = backtrackingAnalyser();
  const diagnostics: Diagnostic[] = [];
  const polynomial = new Set<string>();
  for (const file of foreign) {
    for (const entry of packRules(file.data)) {
      const flags = entry.rule.ignore_case ? 'i' : '';
      for (const pattern of rulePatterns(entry)) {
        const risks = risksOf(pattern.source, flags);
        const worst = risks.find((risk) => risk.exponential);
        if (worst) {
          const at = position(file.source, scalarOffset(file.source.text, nodeAt(file.source, pattern.path).node, worst.offset));
          const message = `Rule ${entry.rule.id} ${pattern.field}: exponential backtracking in "${worst.part}" (on ${worst.attack}): one such line could stall spinup for hours, so the pack is not used; 'spinup lint' suggests a rewrite.`;
          diagnostics.push({ file: file.source.file, ...at, severity: 'error', code: 'regex/super-linear', message });
        } else if (risks.length > 0) {
          polynomial.add(`${flags}/${new RegExp(pattern.source, flags).source}`);
        }
      }
    }
  }
  if (diagnostics.length > 0) throw new PackError(diagnostics);
  return [...polynomial];
}


interface BacktrackingRisk {
  exponential: boolean;
  /** Where the ambiguous part starts in the pattern, and the part itself. */
  offset: number;
  part: string;
  /** The input that triggers it: `a run of "a"`. */
  attack: string;
}

/**
 * scslre's findings (what lint reports as regex/super-linear). Its parser and analyser are lint's,
 * required (not imported) so that only a foreign pack pays for loading them, and synchronously.
 */
function backtrackingAnalyser(): (source: string, flags: string) => BacktrackingRisk[] {
  const require = createRequire(import.meta.url);
  const { RegExpParser } = require('@eslint-community/regexpp') as typeof import('@eslint-community/regexpp');
  const { analyse } = require('scslre') as typeof import('scslre');
  const parser = new RegExpParser({ ecmaVersion: 2024 });
  return (source, flags) => {
    let pattern: ReturnType<typeof parser.parsePattern>;
    try {
      pattern = parser.parsePattern(source, 0, source.length, { unicode: false });
    } catch {
      return []; // V8 compiled it, so it runs; what regexpp cannot parse it cannot judge
    }
    // Move reports (a leading quantifier rescanned at each start) are quadratic: the frame cap bounds them.
    const { reports } = analyse({ pattern, flags: parser.parseFlags(flags) }, { reportTypes: { Move: false } });
    return reports.map((report) => {
      const [a, b] = report.type === 'Trade' ? [report.startQuant, report.endQuant] : report.type === 'Self' ? [report.quant, report.parentQuant] : [report.quant, report.quant];
      const offset = Math.min(a.start, b.start);
      return { exponential: report.exponential, offset, part: source.slice(offset, Math.max(a.end, b.end)), attack: `a run of ${JSON.stringify(report.character.pick)}` };
    });
  };
}
