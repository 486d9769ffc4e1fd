// Which learning curves of a report are flat. A series that holds the same value at every logged step
// (KL with coefficient 0, the probabilities of the `uniform` selector, a clip fraction that is always 0)
// says nothing as a line; the report states it in one line instead ("losses/kl: 0 at every step
// (constant; no chart)") instead of drawing it. The unit is the chart: a chart is replaced when every one
// of its series is constant; a chart where some series move is drawn whole (a flat level beside moving ones
// is a comparison worth seeing). Panel charts (one small chart per series, e.g. curriculum-state.svg) are
// judged per panel: constant panels are said in a line and left out, the moving ones drawn.
//
// "The same value" is exact equality of the stored float64 values: a series that moves by rounding noise
// still moves, and is drawn. A series with a single point is not called constant (one step is not "over
// the run"; it is drawn as one point, as before).
import type { ChartPlan } from './charts.ts';
import type { Point } from './run-data.ts';

export interface ConstantSeries {
  /** The metric key, e.g. losses/kl. */
  key: string;
  value: number;
  /** How many steps logged it. */
  steps: number;
}

export interface ChartOutcome {
  plan: ChartPlan;
  /** Series with points that vary over the run: the ones the chart draws (empty: no chart). */
  drawn: ChartPlan['series'];
  /** Series that hold one value at every logged step: said in a line, not drawn. */
  constant: ConstantSeries[];
}

/** The value every point of `points` holds, or undefined when they differ or there are fewer than 2. */
export function constantValue(points: readonly Point[] | undefined): number | undefined {
  if (!points || points.length < 2) return undefined;
  const first = points[0][1];
  return points.every((point) => point[1] === first) ? first : undefined;
}

/** Splits a chart's series (those with points) into the drawn and the constant ones (see the header). */
export function splitConstant(plan: ChartPlan, series: ReadonlyMap<string, readonly Point[]>): ChartOutcome {
  const moving: ChartPlan['series'] = [];
  const flat: { entry: ChartPlan['series'][number]; said: ConstantSeries }[] = [];
  for (const entry of plan.series) {
    const points = series.get(entry.key);
    if (!points || points.length === 0) continue;
    const value = constantValue(points);
    if (value === undefined) moving.push(entry);
    else flat.push({ entry, said: { key: entry.key, value, steps: points.length } });
  }
  if (moving.length === 0) return { plan, drawn: [], constant: flat.map(({ said }) => said) };
  if (plan.panels) return { plan, drawn: moving, constant: flat.map(({ said }) => said) };
  // Drawn whole, in the plan's order.
  const kept = new Set([...moving, ...flat.map(({ entry }) => entry)]);
  return { plan, drawn: plan.series.filter((entry) => kept.has(entry)), constant: [] };
}

/** "losses/kl: 0 at every step (constant; no chart)" — "not drawn" when the chart shows other series. */
export function constantLine(series: ConstantSeries, chartDrawn: boolean): string {
  return `${series.key}: ${formatValue(series.value)} at every step (${series.steps} steps; constant; ${chartDrawn ? 'not drawn' : 'no chart'})`;
}

/** Up to 6 significant digits, without trailing zeros: 0, 0.25, 1.5e-7. */
function formatValue(value: number): string {
  return String(Number(value.toPrecision(6)));
}
