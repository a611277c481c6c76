// @ts-check
/**
 * A small line chart drawn as SVG (no chart library): one polyline per series over a shared
 * time axis (local clock times at its start, middle and end), with a title and a text legend. The numbers it shows are also given as a table
 * by the page, so the chart is decoration for sighted readers, not the only way to read them.
 *
 * @module
 */
import { html } from '../lib/html.js';

/**
 * @typedef {{ name: string, points: { t: number, v: number }[] }} Series
 */

const PALETTE = ['#2f6fdf', '#d9480f', '#2b8a3e', '#ae3ec9', '#e8590c', '#1098ad'];
const W = 360;
const H = 120;
const PAD = 28;

/**
 * @param {{ title: string, unit: string, series: Series[], testId?: string }} props
 */
export function LineChart({ title, unit, series, testId }) {
  const all = series.flatMap((s) => s.points);
  const t0 = Math.min(...all.map((p) => p.t));
  const t1 = Math.max(...all.map((p) => p.t));
  const vmax = Math.max(1e-9, ...all.map((p) => p.v));
  const x = (/** @type {number} */ t) => PAD + (t1 === t0 ? 0 : ((t - t0) / (t1 - t0)) * (W - PAD - 6));
  const y = (/** @type {number} */ v) => H - 16 - (v / vmax) * (H - 26);
  const label = `${title}: ${series.map((s) => `${s.name} latest ${fmt(s.points.at(-1)?.v ?? 0)} ${unit}`).join('; ') || 'no data'}`;
  return html`<figure class="chart" data-testid=${testId}>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${label} width=${W} height=${H}>
      <title>${label}</title>
      <line class="axis" x1=${PAD} y1=${H - 16} x2=${W - 6} y2=${H - 16} />
      <line class="axis" x1=${PAD} y1="8" x2=${PAD} y2=${H - 16} />
      <text class="tick" x="2" y="14">${fmt(vmax)}</text>
      <text class="tick" x="2" y=${H - 16}>0</text>
      ${all.length === 0
        ? html`<text class="tick" x=${PAD} y=${H - 2}>no calls yet</text>`
        : [t0, (t0 + t1) / 2, t1].map(
            (t, i) => html`<line class="axis" x1=${x(t)} y1=${H - 16} x2=${x(t)} y2=${H - 12} />
              <text class="tick" x=${x(t)} y=${H - 2} text-anchor=${i === 0 ? 'start' : i === 1 ? 'middle' : 'end'}>${clock(t)}</text>`,
          )}
      ${series.map(
        (s, i) => html`<polyline class="series" stroke=${PALETTE[i % PALETTE.length]} fill="none" stroke-width="2"
          points=${s.points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ')} />`,
      )}
    </svg>
    <figcaption>
      <span class="chart-title">${title} (${unit})</span>
      ${series.map((s, i) => html`<span class="legend"><span class=${`swatch swatch-${i % PALETTE.length}`} aria-hidden="true"></span>${s.name}</span>`)}
    </figcaption>
  </figure>`;
}

/** A time as the viewer's local hours and minutes (the axis's ticks). */
function clock(/** @type {number} */ t) {
  return new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** A number with at most 2 decimals. */
function fmt(/** @type {number} */ v) {
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}
