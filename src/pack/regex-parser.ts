/**
 * One regexpp parser for the pattern analyses (literals, first units), required on first use
 * (not imported) so that `watch` with a shipped pack, whose analysis the build did, never loads it.
 */
import { createRequire } from 'node:module';
import type { RegExpParser } from '@eslint-community/regexpp';

let parser: RegExpParser | undefined;

export function regexParser(): RegExpParser {
  if (!parser) {
    const { RegExpParser: Parser } = createRequire(import.meta.url)('@eslint-community/regexpp') as typeof import('@eslint-community/regexpp');
    parser = new Parser({ ecmaVersion: 2024 });
  }
  return parser;
}
