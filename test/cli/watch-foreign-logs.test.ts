/**
 * Issue 13.8: logs of other programs get no confident verdict. With no evidence of any server
 * family, spinup says so plainly and exits 3 (no verdict), never with a server's hint.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'spinup-foreign-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const JAVA = [
  '2025-03-10 16:21:30.101  INFO 41233 --- [           main] com.example.IndexerApplication           : Starting IndexerApplication v2.4.1 using Java 17.0.9 with PID 41233',
  '2025-03-10 16:21:32.123  INFO 41233 --- [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat initialized with port(s): 8080 (http)',
  'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space',
  '\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)',
  '\tat com.example.index.Loader.load(Loader.java:42)',
  '\tat com.example.IndexerApplication.main(IndexerApplication.java:17)',
];
const NGINX = [
  '2025/03/10 16:21:32 [emerg] 41233#41233: bind() to 0.0.0.0:80 failed (98: Address already in use)',
  '2025/03/10 16:21:32 [notice] 41233#41233: try again to bind() after 500ms',
  '2025/03/10 16:21:33 [emerg] 41233#41233: bind() to 0.0.0.0:80 failed (98: Address already in use)',
  '2025/03/10 16:21:34 [emerg] 41233#41233: still could not bind()',
];

describe('13.8: logs of other programs', () => {
  it.for([
    ['a Java OutOfMemoryError', 'java.log', JAVA],
    ['an nginx error log', 'nginx.log', NGINX],
  ] as const)('13.8: %s gets no verdict, says why, and exits 3', async ([, name, lines]) => {
    const file = join(dir, name);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await runMain(['watch', '--no-follow', '--no-history', file]);
    expect(run.stdout).toBe(
      [
        'NO VERDICT  nothing in the input was written by a server spinup knows (sglang, vllm)',
        `  read       ${lines.length} lines: no launch line, logger format, process tag, module path or message of either`,
        '  hint       If a server did write it, name the family: --pack sglang or --pack vllm.',
        '',
      ].join('\n'),
    );
    expect(run.stderr).not.toMatch(/family (?:sglang|vllm)/);
    expect(run.code).toBe(3);

    const json = await runMain(['watch', '--no-follow', '--no-history', '--json', file]);
    const verdict = JSON.parse(json.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(verdict).toMatchObject({ type: 'verdict', verdict: 'incomplete', family_unknown: 'no-evidence' });
    expect(verdict.hint).toBeUndefined();
    expect(json.code).toBe(3);
  });

  it('13.8: followed, such a log waits for a server; at --timeout it says what was seen', async () => {
    const file = join(dir, 'follow-java.log');
    writeFileSync(file, `${JAVA.join('\n')}\n`);
    const run = await runMain(['watch', '--no-history', '--timeout', '1s', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`timed out after 1s with no verdict: ${JAVA.length} line(s) seen, none yet says which server wrote them`);
  }, 20_000);
});
