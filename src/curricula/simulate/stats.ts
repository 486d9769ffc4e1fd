// Learning-curve statistics for simulation results (the interval helpers live in core/stats.ts).
export { type Interval, tInterval, tQuantile975 } from '../../core/stats.ts';

/** Normalised area under a learning curve sampled once per step: the mean accuracy over steps. */
export function areaUnderCurve(curve: readonly number[]): number {
  return curve.length === 0 ? 0 : curve.reduce((sum, value) => sum + value, 0) / curve.length;
}

/** First step (1-based: after that many updates) at which the curve reaches `target`, or 'never'. */
export function stepsToTarget(curve: readonly number[], target: number): number | 'never' {
  const index = curve.findIndex((value) => value >= target);
  return index === -1 ? 'never' : index + 1;
}
