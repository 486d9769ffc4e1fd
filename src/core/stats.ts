// Summary statistics over seeds: mean, sample standard deviation and a two-sided 95% Student-t interval.

// t_{0.975, df} for df = 1..30; beyond 30 the normal value 1.96 is close enough (t_{0.975,40} = 2.021).
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tQuantile975(degreesOfFreedom: number): number {
  if (degreesOfFreedom < 1) return Number.NaN;
  return degreesOfFreedom <= 30 ? T_975[degreesOfFreedom - 1] : 1.96;
}

export interface Interval {
  mean: number;
  /** Half-width of the 95% t-interval (0 for one value). */
  halfWidth: number;
  low: number;
  high: number;
  n: number;
}

export function tInterval(values: readonly number[]): Interval {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, halfWidth: Number.NaN, low: Number.NaN, high: Number.NaN, n };
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  if (n === 1) return { mean, halfWidth: 0, low: mean, high: mean, n };
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1);
  const halfWidth = tQuantile975(n - 1) * Math.sqrt(variance / n);
  return { mean, halfWidth, low: mean - halfWidth, high: mean + halfWidth, n };
}

/** Arithmetic mean; 0 for no values (metrics of an empty batch). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let total = 0;
  for (const value of values) total += value;
  return total / values.length;
}

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export function sampleStd(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1));
}
