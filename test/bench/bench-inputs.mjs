/** Inputs of the bench rows that are not generated logs: a user's pack, and copies of the fixture corpus. */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One failure rule a curator adds (issue 12's row "user's pack"). */
const CURATED_RULE = `  - id: sglang/curated-disk-full
    pattern: 'OSError: \\[Errno 28\\] No space left on device'
    description: 'The disk filled up while the server started.'
    cause: crash
    message: 'no space left on device'
    hint: 'Free disk space on the model cache volume.'
`;

/** The shipped packs copied to DIR/user-pack, with one failure rule added to sglang.yaml: { file }. */
export function userPack(dir) {
  const packDir = join(dir, 'user-pack');
  mkdirSync(packDir, { recursive: true });
  cpSync(join(ROOT, 'rules'), packDir, { recursive: true });
  const file = join(packDir, 'sglang.yaml');
  const text = readFileSync(file, 'utf8');
  if (!text.includes('\nfailures:\n')) throw new Error('rules/sglang.yaml has no top-level failures: list to add a rule to');
  writeFileSync(file, text.replace('\nfailures:\n', `\nfailures:\n${CURATED_RULE}`));
  return { file };
}

/** `count` fixture logs (with their expectations) in DIR/replay-corpus-COUNT: the corpus copied over and over. */
export function replayCorpus(dir, count) {
  const fixtures = [];
  for (const family of ['sglang', 'vllm']) {
    for (const name of readdirSync(join(ROOT, 'fixtures', family)).sort()) {
      if (name.endsWith('.log') && existsSync(join(ROOT, 'fixtures', family, name.replace(/\.log$/, '.expect.yaml')))) fixtures.push({ family, name });
    }
  }
  // Named by what is copied, so a corpus made from other fixtures or expectations is never reused.
  const hash = createHash('sha256');
  for (const { family, name } of fixtures) hash.update(`${family}/${name}\n`).update(readFileSync(join(ROOT, 'fixtures', family, name.replace(/\.log$/, '.expect.yaml'))));
  const target = join(dir, `replay-corpus-${count}-${hash.digest('hex').slice(0, 12)}`);
  if (!existsSync(join(target, 'done'))) {
    for (let i = 0; i < count; i++) {
      const { family, name } = fixtures[i % fixtures.length];
      const copy = join(target, `copy-${Math.floor(i / fixtures.length)}`, family);
      mkdirSync(copy, { recursive: true });
      copyFileSync(join(ROOT, 'fixtures', family, name), join(copy, name));
      const expect = name.replace(/\.log$/, '.expect.yaml');
      copyFileSync(join(ROOT, 'fixtures', family, expect), join(copy, expect));
    }
    writeFileSync(join(target, 'done'), '');
  }
  return { dir: target, logs: count };
}

/**
 * An archive of `count` startup logs (issue 26, row k): the fixture corpus copied over and over,
 * each copy another day and another hour (every `YYYY-MM-DD` moved by `copy` days, every
 * `HH:MM:SS` by a few minutes where no time of the log then passes midnight) and its SGLang rank
 * tags renumbered (`TPn` -> `TP(n xor 1)` inside a stamp's brackets), with its expectation.
 * Only what the expectations do not name is varied, so every copy must still pass.
 */
export function archiveCorpus(dir, count) {
  const fixtures = [];
  for (const family of ['sglang', 'vllm']) {
    for (const name of readdirSync(join(ROOT, 'fixtures', family)).sort()) {
      if (name.endsWith('.log') && existsSync(join(ROOT, 'fixtures', family, name.replace(/\.log$/, '.expect.yaml')))) fixtures.push({ family, name });
    }
  }
  const hash = createHash('sha256').update(`archive v${ARCHIVE_VERSION}\n`);
  for (const { family, name } of fixtures) hash.update(`${family}/${name}\n`).update(readFileSync(join(ROOT, 'fixtures', family, name))).update(readFileSync(join(ROOT, 'fixtures', family, name.replace(/\.log$/, '.expect.yaml'))));
  const target = join(dir, `archive-${count}-${hash.digest('hex').slice(0, 12)}`);
  if (!existsSync(join(target, 'done'))) {
    for (let i = 0; i < count; i++) {
      const { family, name } = fixtures[i % fixtures.length];
      const copyNo = Math.floor(i / fixtures.length);
      const copy = join(target, `copy-${copyNo}`, family);
      mkdirSync(copy, { recursive: true });
      const expect = name.replace(/\.log$/, '.expect.yaml');
      const expectText = readFileSync(join(ROOT, 'fixtures', family, expect), 'utf8');
      const log = readFileSync(join(ROOT, 'fixtures', family, name), 'latin1');
      writeFileSync(join(copy, name), varied(log, expectText, copyNo), 'latin1');
      copyFileSync(join(ROOT, 'fixtures', family, expect), join(copy, expect));
    }
    writeFileSync(join(target, 'done'), '');
  }
  return { dir: target, logs: count };
}
const ARCHIVE_VERSION = 1;

const DATE = /\b(\d{4})-(\d{2})-(\d{2})(?=[ T])/g;
const TIME = /(?<![\d:.])(\d{2}):(\d{2}):(\d{2})(?![\d:])/g;
const RANK_TAG = /(\d{2}:\d{2}:\d{2}(?:\.\d+)?(?: (?:DP|PP|EP)\d+)*) TP(\d+)(?=[\] ])/g;

/** The log of one copy: its dates, times and rank tags varied where its expectation does not look. */
function varied(log, expectText, copyNo) {
  if (copyNo === 0) return log;
  let text = log.replace(DATE, (whole, y, m, d) => {
    const moved = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)) + copyNo * 86_400_000);
    return Number.isNaN(moved.getTime()) ? whole : moved.toISOString().slice(0, 10);
  });
  // Times move together, by a few minutes, unless one would pass midnight (the day would not follow).
  let latest = 0;
  for (const [, h, m, s] of text.matchAll(TIME)) latest = Math.max(latest, Number(h) * 3600 + Number(m) * 60 + Number(s));
  const shift = ((copyNo * 7) % 50) * 60;
  if (latest < 86_400 && latest + shift < 86_400) {
    text = text.replace(TIME, (whole, h, m, s) => {
      const at = Number(h) * 3600 + Number(m) * 60 + Number(s);
      if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59) return whole;
      const t = at + shift;
      return [Math.floor(t / 3600), Math.floor(t / 60) % 60, t % 60].map((n) => String(n).padStart(2, '0')).join(':');
    });
  }
  // Rank tags in a stamp's brackets, where the expectation names no rank.
  if (copyNo % 2 === 1 && !/\bTP\d/.test(expectText)) text = text.replace(RANK_TAG, (_, before, rank) => `${before} TP${Number(rank) ^ 1}`);
  return text;
}
