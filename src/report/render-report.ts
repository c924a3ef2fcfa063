/** The HTML report: one self-contained page (inline style, SVG and script; it fetches nothing). */
import { drawStarts } from './draw-starts.js';
import { CLICK_SCRIPT, pageHtml } from './page-shell.js';
import type { ReportModel } from './report-model.js';

export function renderReport(model: ReportModel, options: { note?: string } = {}): string {
  return pageHtml({ title: model.title, heading: model.title, body: drawStarts(model), script: CLICK_SCRIPT, note: options.note });
}
