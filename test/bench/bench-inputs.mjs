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
