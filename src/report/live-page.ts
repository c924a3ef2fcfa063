/**
 * The live page the status API serves at `/`: the report's page, drawn in the browser from
 * the server's `/v1/events` stream (EventSource, relative to the page's own URL, so it works
 * behind a path prefix). It runs the report's own lane builder and drawing functions, inlined.
 */
import { DRAW_FUNCTIONS } from './draw-starts.js';
import { LANE_BUILDER_FUNCTIONS } from './lane-builder.js';
import { CLICK_SCRIPT, pageHtml } from './page-shell.js';

/** Event types spinup's --json (and so /v1/events) writes; `message` is an SSE event without a name. */
const EVENT_TYPES = ['family', 'stage', 'progress', 'warning', 'restart', 'after_ready_failure', 'verdict', 'notice', 'message'];

const LIVE_SCRIPT = `
var lanes = [];
var lastId = -1;
var redrawQueued = false;
var statusText = document.getElementById('live-status');
function redraw() {
  redrawQueued = false;
  var model = { title: document.title, starts: [{ title: 'This start', lanes: lanes.length > 0 ? lanes : [emptyLane()] }], usual: [{}] };
  document.getElementById('starts').innerHTML = drawStarts(model);
  var open = window.spinupOpenDetails || {};
  Object.keys(open).forEach(function (id) { var el = document.getElementById(id); if (el && open[id]) el.hidden = false; });
  var verdicts = lanes.map(function (lane) { return lane.verdict ? lane.verdict.verdict : 'running'; });
  document.body.setAttribute('data-verdict', verdicts.length > 0 ? verdicts.join(' ') : 'running');
}
function receive(message) {
  var id = Number(message.lastEventId);
  if (message.lastEventId !== '' && Number.isFinite(id)) {
    if (id <= lastId) return; // a reconnect that replays what was seen
    lastId = id;
  }
  var event;
  try { event = JSON.parse(message.data); } catch (error) { return; }
  if (!event || typeof event !== 'object') return;
  if (!event.type) event.type = message.type;
  applyEvent(laneForEvent(lanes, event), event);
  if (!redrawQueued) { redrawQueued = true; setTimeout(redraw, 30); }
}
var source = new EventSource('v1/events');
${JSON.stringify(EVENT_TYPES)}.forEach(function (type) { source.addEventListener(type, receive); });
source.onopen = function () { statusText.textContent = 'live: following /v1/events'; };
source.onerror = function () {
  var done = lanes.length > 0 && lanes.every(function (lane) { return lane.verdict; });
  statusText.textContent = done ? 'the start has its verdict; the event stream is closed' : 'event stream lost; the browser retries';
};
redraw();
`;

export function livePageHtml(): string {
  const functions = [...LANE_BUILDER_FUNCTIONS, ...DRAW_FUNCTIONS].map((fn) => fn.toString()).join('\n');
  return pageHtml({
    title: 'spinup: live start',
    heading: 'spinup: live start',
    body: '',
    note: 'connecting to /v1/events…',
    noteId: 'live-status',
    script: `${CLICK_SCRIPT}\n${functions}\n${LIVE_SCRIPT}`,
  });
}
