/**
 * The six-axis friction profile as a radar chart, drawn on the server as inline SVG.
 * The geometry is a pure function (tested on its own); the SVG carries role="img" with a
 * <title> and a <desc> that says every score, and the page puts a table of the same six
 * numbers beside it, so nothing depends on seeing the shape.
 */
import { AXES, type Axis } from '../../catalog/vocabulary.ts';
import { html, type SafeHtml } from '../html.ts';
import { AXIS_LABEL } from './labels.ts';

export interface Point {
  x: number;
  y: number;
}

export interface RadarLayout {
  cx: number;
  cy: number;
  /** radius of the outer ring, which stands for `max` */
  r: number;
  max: number;
}

export const DEFAULT_LAYOUT: RadarLayout = { cx: 230, cy: 150, r: 100, max: 10 };

const round2 = (n: number) => Math.round(n * 100) / 100 + 0; // + 0 turns -0 into 0

/** Angle of axis i of n: the first points straight up, the rest follow clockwise. */
export const axisAngle = (i: number, n: number) => -Math.PI / 2 + (2 * Math.PI * i) / n;

/** Where each value lands: distance value/max along its axis, values clamped to [0, max]. */
export function radarPoints(values: readonly number[], layout: RadarLayout = DEFAULT_LAYOUT): Point[] {
  const { cx, cy, r, max } = layout;
  return values.map((v, i) => {
    const d = (Math.min(max, Math.max(0, v)) / max) * r;
    const a = axisAngle(i, values.length);
    return { x: round2(cx + d * Math.cos(a)), y: round2(cy + d * Math.sin(a)) };
  });
}

export const pointsAttr = (pts: Point[]) => pts.map((p) => `${p.x},${p.y}`).join(' ');

/** Side labels take two lines (name, then score) so long names stay inside the chart. */
function label(p: Point, name: string, score: number, anchor: string): SafeHtml {
  if (anchor === 'middle') {
    return html`<text x="${p.x}" y="${p.y}" text-anchor="middle" dominant-baseline="middle">${name} <tspan class="radar-score">${score}</tspan></text>`;
  }
  return html`<text x="${p.x}" y="${round2(p.y - 9)}" text-anchor="${anchor}" dominant-baseline="middle">${name}<tspan class="radar-score" x="${p.x}" dy="19">${score}</tspan></text>`;
}

export function radarSvg(name: string, axes: Record<Axis, number>, layout: RadarLayout = DEFAULT_LAYOUT): SafeHtml {
  const values = AXES.map((a) => axes[a]);
  const n = values.length;
  const rings = [0.25, 0.5, 0.75, 1].map((f) => pointsAttr(radarPoints(Array(n).fill(f * layout.max), layout)));
  const ends = radarPoints(Array(n).fill(layout.max), layout);
  const labels = radarPoints(Array(n).fill(layout.max * 1.2), layout);
  const shape = radarPoints(values, layout);
  const desc = AXES.map((a) => `${AXIS_LABEL[a]} ${axes[a]}`).join(', ');
  const anchor = (p: Point) => (Math.abs(p.x - layout.cx) < 1 ? 'middle' : p.x < layout.cx ? 'end' : 'start');
  return html`<svg class="radar" role="img" aria-labelledby="radar-title radar-desc" viewBox="0 0 460 300" width="460" height="300" xmlns="http://www.w3.org/2000/svg">
<title id="radar-title">Friction profile of ${name}</title>
<desc id="radar-desc">Scores from 0 (no friction) to ${layout.max} (worst) on six axes: ${desc}.</desc>
<g class="radar-grid" fill="none">${rings.map((pts) => html`<polygon points="${pts}"/>`)}
${ends.map((p) => html`<line x1="${layout.cx}" y1="${layout.cy}" x2="${p.x}" y2="${p.y}"/>`)}</g>
<polygon class="radar-shape" points="${pointsAttr(shape)}"/>
<g class="radar-dots">${shape.map((p) => html`<circle cx="${p.x}" cy="${p.y}" r="3.5"/>`)}</g>
<g class="radar-labels">${labels.map((p, i) => label(p, AXIS_LABEL[AXES[i]!], values[i]!, anchor(p)))}</g>
</svg>`;
}
