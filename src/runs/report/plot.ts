// Learning-curve plots for run reports: a vega-lite line chart rendered to SVG in-process (vega's
// headless 'none' renderer), with no network access — the data is inlined and the text uses the
// generic 'sans-serif' family, so the SVG references no URL besides its xmlns attributes.
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export interface ChartSeries {
  name: string;
  /** [step, value] pairs; non-finite values are dropped, and curves longer than MAX_POINTS thinned. */
  points: readonly (readonly [number, number])[];
}

export interface LineChartOptions {
  title: string;
  series: readonly ChartSeries[];
  yLabel: string;
  /** Fixed y range, e.g. [0, 1] for pass rates; otherwise fitted to the data. */
  yDomain?: readonly [number, number];
  /** Start the y axis at 0 (when there is no yDomain); otherwise it is fitted to the data. */
  yZero?: boolean;
  xLabel?: string;
  /**
   * One small panel per series, each with its own y axis (for curves of unrelated scale, such as a
   * selector's target difficulty next to its entropy) instead of one shared chart with a legend.
   */
  panels?: boolean;
}

// Colour-blind-safe palette (Okabe–Ito); vega's tableau20 takes over past eight series.
const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];
const WIDTH = 560;
const HEIGHT = 260;
const PANEL_HEIGHT = 90;
// Long metric names must not be cut to "…" in legends and panel headers.
const LABEL_LIMIT = 480;
// Long runs: at most this many points per curve, so an SVG stays a few hundred kB.
export const MAX_POINTS = 1000;
// Curves longer than this are drawn smoothed (trailing mean) over their faint raw values.
export const SMOOTH_ABOVE = 100;

/** Renders the series as an SVG line chart (steps on x). */
export async function lineChart(options: LineChartOptions): Promise<string> {
  const view = new vega.View(vega.parse(compile(chartSpec(options)).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** The vega-lite specification behind lineChart (exported for tests and for reuse in other front ends). */
export function chartSpec(options: LineChartOptions): TopLevelSpec {
  const names = options.series.map((series) => series.name);
  const values = options.series.flatMap((series) =>
    thin(series.points.filter(([step, value]) => Number.isFinite(step) && Number.isFinite(value))).map(
      ([step, value]) => ({ step, value, series: series.name }),
    ),
  );
  const mostPoints = Math.max(0, ...options.series.map((series) => series.points.length));
  // Dots keep sparse curves (evaluations every N steps, a single point) visible.
  const line = { type: 'line', point: mostPoints <= 60 ? { size: 18 } : false, strokeWidth: 1.6 } as const;
  const x = {
    field: 'step',
    type: 'quantitative',
    title: options.xLabel ?? 'step',
    axis: { tickMinStep: 1, format: 'd' },
  } as const;
  const yScale = options.yDomain
    ? { domain: [...options.yDomain], clamp: true }
    : (constantDomain(values.map((value) => value.value)) ?? { zero: options.yZero ?? false, nice: true });
  const y = { field: 'value', type: 'quantitative', title: options.yLabel, scale: yScale } as const;
  const color = {
    field: 'series',
    type: 'nominal',
    scale:
      names.length <= OKABE_ITO.length
        ? { domain: names, range: OKABE_ITO }
        : { domain: names, scheme: 'tableau20' },
    sort: names,
  } as const;
  // Long, noisy curves (per-step reward, entropy): the raw values faintly, and over them the mean of
  // the trailing `window` points of each series.
  const window =
    mostPoints > SMOOTH_ABOVE ? Math.max(5, Math.round(Math.min(mostPoints, MAX_POINTS) / 50)) : 0;
  const layers = (encoding: Record<string, unknown>) =>
    window === 0
      ? { mark: line, encoding }
      : {
          layer: [
            { mark: { type: 'line', strokeWidth: 1, opacity: 0.3 }, encoding },
            {
              transform: [
                {
                  window: [{ op: 'mean', field: 'value', as: 'smoothed' }],
                  frame: [-(window - 1), 0],
                  groupby: ['series'],
                  sort: [{ field: 'step' }],
                },
              ],
              mark: { type: 'line', strokeWidth: 1.8 },
              encoding: { ...encoding, y: { ...(encoding.y as object), field: 'smoothed' } },
            },
          ],
        };
  const title =
    window === 0
      ? options.title
      : { text: options.title, subtitle: `faint: every value; bold: mean of the last ${window} points` };
  const config = {
    font: 'sans-serif',
    legend: { labelLimit: LABEL_LIMIT, orient: 'bottom', columns: 2, symbolType: 'stroke', symbolOpacity: 1 },
    header: { labelLimit: LABEL_LIMIT },
    view: { stroke: '#ddd' },
  } as const;
  if (options.panels) {
    return {
      title,
      data: { values },
      facet: {
        row: {
          field: 'series',
          type: 'nominal',
          sort: names,
          header: { title: null, labelAngle: 0, labelAlign: 'left', labelOrient: 'top', labelFontSize: 11 },
        },
      },
      spec: {
        width: WIDTH,
        height: PANEL_HEIGHT,
        ...layers({ x, y: { ...y, title: null }, color: { ...color, legend: null } }),
      },
      resolve: { scale: { y: 'independent' } },
      config,
    } as TopLevelSpec;
  }
  return {
    title,
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    ...layers({ x, y, color: { ...color, title: null } }),
    config,
  } as TopLevelSpec;
}

/** A flat line (every value equal, e.g. a KL of exactly 0) gets a range around it instead of a point. */
function constantDomain(values: readonly number[]): { domain: number[] } | null {
  if (values.length === 0 || values.some((value) => value !== values[0])) return null;
  const value = values[0];
  return { domain: value === 0 ? [0, 1] : [Math.min(0, 2 * value), Math.max(0, 2 * value)] };
}

/** Every ⌈n / MAX_POINTS⌉-th point, always keeping the last one (the final value of the run). */
function thin<T>(points: readonly T[]): readonly T[] {
  if (points.length <= MAX_POINTS) return points;
  const stride = Math.ceil(points.length / MAX_POINTS);
  const kept = points.filter((_, index) => index % stride === 0);
  if ((points.length - 1) % stride !== 0) kept.push(points[points.length - 1]);
  return kept;
}
