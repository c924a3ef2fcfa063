/** The drawing: HTML/SVG from the model, the same in Node and (inlined) in the browser, and safe with any log text. */
import { describe, expect, it } from 'vitest';
import { DRAW_FUNCTIONS, drawStarts, formatMs } from '../../src/report/draw-starts.js';
import { lanesFromEvents } from '../../src/report/lane-builder.js';
import { laneFromTrace } from '../../src/report/lane-from-trace.js';
import type { ReportModel } from '../../src/report/report-model.js';
import { FAILED, fixtureTrace, READY, STALLED } from './fixture-trace.js';

const model = (files: string[]): ReportModel => ({ title: 't', starts: files.map((f) => ({ title: f, lanes: [laneFromTrace(fixtureTrace(f))] })), usual: files.map(() => ({})) });

describe('drawStarts', () => {
  it('draws a bar per stage, the verdict marker and a stall\'s shading', () => {
    const html = drawStarts(model([READY, FAILED, STALLED]));
    expect(html.match(/<section class="start"/g)).toHaveLength(3);
    expect(html.match(/<g class="bar /g)).toHaveLength([READY, FAILED, STALLED].map((f) => laneFromTrace(fixtureTrace(f)).stages.length).reduce((a, b) => a + b));
    expect(html.match(/<g class="verdict verdict-(\w+)"/g)).toEqual(['<g class="verdict verdict-ready"', '<g class="verdict verdict-failed"', '<g class="verdict verdict-stalled"']);
    expect(html.match(/<rect class="silence"/g)).toHaveLength(1);
    expect(html.match(/<line class="budget"/g)).toHaveLength(1);
  });

  it('draws the same HTML from its inlined source (as the live page runs it)', () => {
    const inlined = new Function(`${DRAW_FUNCTIONS.map(String).join('\n')}\nreturn drawStarts;`)() as typeof drawStarts;
    const m = model([READY, STALLED]);
    expect(inlined(m)).toBe(drawStarts(m));
  });

  it('escapes whatever a log line says', () => {
    const lanes = lanesFromEvents([
      { type: 'stage', stage: 'launch', at_ms: 0, line: 1, text: '<script>alert(1)</script> & "quotes"' },
      { type: 'verdict', verdict: 'failed', stage: 'launch', at_ms: 1000, cause: 'crash', rule: 'x/<b>', evidence: [{ line: 2, text: "<img src=x onerror='boom'>" }] },
    ]);
    const html = drawStarts({ title: 't', starts: [{ title: '<t>', lanes }], usual: [{}] });
    expect(html).not.toMatch(/<script|<img|<t>|x\/<b>/);
    expect(html).toContain('x/&lt;b&gt;');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(html).toContain('&lt;img src=x onerror=&#39;boom&#39;&gt;');
  });

  it.for([
    [0, '0s'],
    [850, '850ms'],
    [42_000, '42s'],
    [192_000, '3m12s'],
    [3_900_000, '1h05m'],
  ] as const)('formats %i ms as %s, like core/duration.ts', ([ms, text]) => {
    expect(formatMs(ms)).toBe(text);
  });
});
