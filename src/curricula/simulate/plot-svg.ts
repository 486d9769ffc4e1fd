// A tiny, dependency-free SVG line chart: one line per series (with an optional shaded band), axes
// with ticks, a legend and a dashed horizontal reference line. Enough for learning curves.

export interface LineSeries {
  label: string;
  values: readonly number[];
  /** Optional band (e.g. a 95% interval), same length as values. */
  low?: readonly number[];
  high?: readonly number[];
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  width?: number;
  height?: number;
  yMin?: number;
  yMax?: number;
  /** A dashed horizontal line (e.g. the target accuracy). */
  reference?: number;
}

// Colour-blind-safe palette (Okabe–Ito), extended with greys for many series.
const COLOURS = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#F0E442',
  '#000000',
  '#999999',
  '#7F3C8D',
  '#11A579',
  '#3969AC',
  '#E73F74',
  '#80BA5A',
];

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const format = (value: number) => Number(value.toFixed(2)).toString();

export function lineChartSvg(series: readonly LineSeries[], options: LineChartOptions): string {
  const width = options.width ?? 900;
  const height = options.height ?? 520;
  const margin = { left: 64, right: 190, top: 40, bottom: 52 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const length = Math.max(1, ...series.map((line) => line.values.length));
  const all = series.flatMap((line) => [...line.values, ...(line.low ?? []), ...(line.high ?? [])]);
  const yMin = options.yMin ?? Math.min(0, ...all);
  const yMax = options.yMax ?? Math.max(1, ...all);
  const x = (index: number) => margin.left + (length <= 1 ? 0 : (index / (length - 1)) * plotWidth);
  const y = (value: number) => margin.top + plotHeight - ((value - yMin) / (yMax - yMin || 1)) * plotHeight;
  const path = (values: readonly number[]) =>
    values
      .map((value, index) => `${index === 0 ? 'M' : 'L'}${format(x(index))},${format(y(value))}`)
      .join('');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2 - margin.right / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(options.title)}</text>`,
  ];
  for (let tick = 0; tick <= 5; tick++) {
    const value = yMin + ((yMax - yMin) * tick) / 5;
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${format(y(value))}" y2="${format(y(value))}" stroke="#e5e5e5"/>`,
      `<text x="${margin.left - 8}" y="${format(y(value) + 4)}" text-anchor="end">${format(value)}</text>`,
    );
    // x ticks at steps 1, L/5, 2L/5, …, L (values are indexed by step − 1).
    const stepLabel = Math.max(1, Math.round((length * tick) / 5));
    parts.push(
      `<text x="${format(x(stepLabel - 1))}" y="${margin.top + plotHeight + 18}" text-anchor="middle">${stepLabel}</text>`,
    );
  }
  parts.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#333"/>`,
    `<text x="${margin.left + plotWidth / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(18 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  );
  if (options.reference !== undefined) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${format(y(options.reference))}" y2="${format(y(options.reference))}" stroke="#666" stroke-dasharray="6 4"/>`,
    );
  }
  series.forEach((line, index) => {
    const colour = COLOURS[index % COLOURS.length];
    if (line.low !== undefined && line.high !== undefined) {
      const upper = path(line.high);
      const lower = [...line.low]
        .map((value, position) => `L${format(x(position))},${format(y(value))}`)
        .reverse()
        .join('');
      parts.push(`<path d="${upper}${lower}Z" fill="${colour}" fill-opacity="0.12" stroke="none"/>`);
    }
    parts.push(`<path d="${path(line.values)}" fill="none" stroke="${colour}" stroke-width="1.8"/>`);
    const legendY = margin.top + 8 + index * 18;
    parts.push(
      `<line x1="${width - margin.right + 14}" x2="${width - margin.right + 38}" y1="${legendY}" y2="${legendY}" stroke="${colour}" stroke-width="3"/>`,
      `<text x="${width - margin.right + 44}" y="${legendY + 4}">${escapeXml(line.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
