// uPlot helpers: a line chart over aligned series, EMA smoothing, log/linear y, a ±sd band, bars.
// uPlot (https://github.com/leeoniya/uPlot) is loaded as the global `uPlot` from /vendor/.
const COLORS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];

export function color(index) {
  return COLORS[index % COLORS.length];
}

/** Aligns [steps, values] series on the union of their steps (null where a series has no point). */
export function align(seriesList) {
  const steps = [...new Set(seriesList.flatMap(([xs]) => xs))].sort((a, b) => a - b);
  const index = new Map(steps.map((step, i) => [step, i]));
  const ys = seriesList.map(([xs, vs]) => {
    const out = new Array(steps.length).fill(null);
    xs.forEach((x, i) => {
      out[index.get(x)] = vs[i];
    });
    return out;
  });
  return [steps, ...ys];
}

/** Exponential moving average over the non-null values (weight = smoothing, 0 = raw). */
export function ema(values, smoothing) {
  if (!smoothing) return values;
  let last = null;
  return values.map((value) => {
    if (value === null || !Number.isFinite(value)) return value;
    last = last === null ? value : smoothing * last + (1 - smoothing) * value;
    return last;
  });
}

export function lineChart(target, { title, labels, data, log = false, width = 420, height = 220, bands }) {
  const series = [
    { label: 'step' },
    ...labels.map((label, i) => ({
      label,
      stroke: color(i),
      width: 1.5,
      spanGaps: true,
      points: { size: 4 },
    })),
  ];
  const options = {
    title,
    width,
    height,
    series,
    scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
    legend: { live: true },
  };
  if (bands) options.bands = bands;
  const shown = log
    ? data.map((column, i) => (i === 0 ? column : column.map((v) => (v !== null && v > 0 ? v : null))))
    : data;
  return new uPlot(options, shown, target);
}

export function barChart(target, { title, edges, counts, onBin, width = 420, height = 180 }) {
  const xs = edges.slice(0, -1).map((lo, i) => (lo + edges[i + 1]) / 2);
  const chart = new uPlot(
    {
      title,
      width,
      height,
      scales: { x: { time: false, range: [edges[0], edges[edges.length - 1]] } },
      series: [
        { label: 'reward' },
        {
          label: 'samples',
          fill: '#1f77b455',
          stroke: '#1f77b4',
          paths: uPlot.paths.bars({ size: [0.9] }),
          points: { show: false },
        },
      ],
    },
    [xs, counts],
    target,
  );
  chart.over.addEventListener('click', () => {
    const i = chart.cursor.idx;
    if (i !== null && i !== undefined) onBin(edges[i], edges[i + 1]);
  });
  return chart;
}
