/**
 * The parts of the page around the lanes: style, the stage patterns (so a bar reads without
 * colour), the script that opens a bar's lines on click. All inline: the page fetches nothing.
 */
import { escapeHtml } from './draw-starts.js';

/** Stage colours, and a pattern each: what tells the stages apart in grey or in print. */
const STAGE_LOOKS: Record<string, { color: string; pattern: string }> = {
  none: { color: '#bdbdbd', pattern: '' },
  launch: { color: '#90a4ae', pattern: '' },
  distributed_init: { color: '#9575cd', pattern: '<circle cx="3" cy="3" r="1.3"/>' },
  load_weights: { color: '#42a5f5', pattern: '<path d="M-1 1 l2 -2 M0 6 l6 -6 M5 7 l2 -2" stroke-width="1.2"/>' },
  kv_cache: { color: '#26a69a', pattern: '<path d="M0 1.5 h6 M0 4.5 h6" stroke-width="1"/>' },
  compile: { color: '#ffca28', pattern: '<path d="M0 0 l6 6 M6 0 l-6 6" stroke-width="0.8"/>' },
  cuda_graph: { color: '#ff7043', pattern: '<path d="M-1 5 l2 2 M0 0 l6 6 M5 -1 l2 2" stroke-width="1.2"/>' },
  http_server: { color: '#8d6e63', pattern: '<path d="M1.5 0 v6 M4.5 0 v6" stroke-width="1"/>' },
  warmup: { color: '#ec407a', pattern: '<rect x="0" y="0" width="3" height="3"/><rect x="3" y="3" width="3" height="3"/>' },
  ready: { color: '#66bb6a', pattern: '' },
};

function patternDefs(): string {
  const patterns = Object.entries(STAGE_LOOKS).map(
    ([stage, look]) => `<pattern id="pattern-${stage}" width="6" height="6" patternUnits="userSpaceOnUse"><g fill="#0008" stroke="#0008" shape-rendering="crispEdges">${look.pattern}</g></pattern>`,
  );
  patterns.push('<pattern id="pattern-silence" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#fff6"/><path d="M0 0 v8" stroke="#333a" stroke-width="1.5" shape-rendering="crispEdges"/></pattern>');
  return `<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>${patterns.join('')}</defs></svg>`;
}

const STYLE = `
:root { color-scheme: light; font: 14px/1.4 system-ui, sans-serif; color: #222; background: #fff; }
body { margin: 16px 24px; max-width: 1400px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 18px 0 0; word-break: break-all; }
.subtitle, .generated { color: #666; margin: 0; font-size: 12px; }
.axis { position: sticky; top: 0; background: #fffe; z-index: 1; padding-left: 11px; }
.axis svg { width: 100%; height: auto; display: block; }
.axis line { stroke: #555; }
.axis text { font-size: 10px; fill: #444; }
.lane { border-left: 3px solid #ddd; padding-left: 8px; margin: 6px 0 12px; }
.lane-head { margin: 4px 0 0; }
.node { font-weight: 600; }
.verdict-word { font-weight: 700; padding: 0 4px; border-radius: 3px; border: 1px solid currentColor; }
.verdict-word.ready { color: #1b5e20; } .verdict-word.failed { color: #b71c1c; }
.verdict-word.stalled { color: #e65100; } .verdict-word.incomplete, .verdict-word.running { color: #455a64; }
svg.track { width: 100%; height: auto; display: block; }
.grid { stroke: #0001; }
.bar { cursor: pointer; }
.bar:focus { outline: none; } .bar:focus .fill, .bar.selected .fill { stroke: #000; stroke-width: 2; }
.bar .fill { stroke: #fff; stroke-width: 0.5; }
.bar.open .fill { opacity: 0.7; }
.bar text { font-size: 11px; fill: #111; paint-order: stroke; stroke: #fffc; stroke-width: 3px; pointer-events: none; }
.progress { fill: none; stroke: #111; stroke-width: 1.5; }
.usual { opacity: 0.35; }
.silence { stroke: #555; stroke-width: 0.5; }
.budget { stroke: #000; stroke-width: 1.5; stroke-dasharray: 3 2; }
.after-ready { fill: #c62828; }
.verdict line { stroke-width: 2; } .verdict text { font-size: 11px; font-weight: 700; }
.verdict-ready line { stroke: #2e7d32; } .verdict-ready text { fill: #1b5e20; }
.verdict-failed line { stroke: #c62828; } .verdict-failed text { fill: #b71c1c; }
.verdict-stalled line { stroke: #ef6c00; stroke-dasharray: 4 2; } .verdict-stalled text { fill: #e65100; }
.verdict-incomplete line { stroke: #546e7a; stroke-dasharray: 2 2; } .verdict-incomplete text { fill: #37474f; }
.chips { margin: 2px 0; }
.chip { font: 12px system-ui, sans-serif; border: 1px solid #ccc; background: #fafafa; border-radius: 3px; padding: 1px 5px; cursor: pointer; }
.chip svg { vertical-align: -1px; }
.detail, .verdict-detail { font-size: 12px; background: #f6f6f6; border-radius: 4px; padding: 4px 8px; margin: 4px 0; }
.detail p, .verdict-detail p { margin: 2px 0; }
.verdict-failed.verdict-detail { background: #fdecea; } .verdict-stalled.verdict-detail { background: #fff3e0; }
code { font-size: 11px; white-space: pre-wrap; word-break: break-all; }
.legend { font-size: 12px; color: #444; }
${Object.entries(STAGE_LOOKS).map(([stage, look]) => `.stage-${stage}.fill, .stage-${stage} .fill, rect.usual.stage-${stage} { fill: ${look.color}; }`).join('\n')}
`;

/** Opens (or closes) the lines of the bar or chip clicked; keeps working when the lanes are redrawn. */
export const CLICK_SCRIPT = `
document.addEventListener('click', function (event) {
  var target = event.target.closest && event.target.closest('[data-detail]');
  if (!target) return;
  var detail = document.getElementById(target.getAttribute('data-detail'));
  if (!detail) return;
  detail.hidden = !detail.hidden;
  window.spinupOpenDetails = window.spinupOpenDetails || {};
  window.spinupOpenDetails[detail.id] = !detail.hidden;
});
document.addEventListener('keydown', function (event) {
  if ((event.key === 'Enter' || event.key === ' ') && event.target.closest && event.target.closest('.bar')) { event.preventDefault(); event.target.dispatchEvent(new MouseEvent('click', { bubbles: true })); }
});
`;

const LEGEND = `<p class="legend">Each bar is a stage on the log's own clock (its label, colour and pattern name it; the duration is written on it or on its button below); the black line inside load_weights and cuda_graph is their progress; a vertical line is the verdict; a hatched grey stretch is a stall's silence and the dashed line its budget; a red triangle is a failure after ready; a faint strip under a bar is the stage's usual duration for this model on this host. Click a bar or its button to see the lines that opened and closed it.</p>`;

/** A whole page: `body` is drawn lanes (or an empty holder the script fills). */
export function pageHtml(params: { title: string; heading: string; body: string; script: string; note?: string; noteId?: string }): string {
  const id = params.noteId ? ` id="${params.noteId}"` : '';
  const note = params.note ? `<p class="generated"${id}>${escapeHtml(params.note)}</p>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; connect-src 'self'">
<title>${escapeHtml(params.title)}</title>
<style>${STYLE}</style>
</head>
<body>
${patternDefs()}
<h1>${escapeHtml(params.heading)}</h1>
${note}
${LEGEND}
<main id="starts">
${params.body}
</main>
<script>${params.script}</script>
</body>
</html>
`;
}
