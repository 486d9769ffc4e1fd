// Mean and standard deviation of a list of rewards, with the population/sample choice made explicit.
//   population: sqrt(Σ(x−μ)²/n)        sample (Bessel-corrected): sqrt(Σ(x−μ)²/(n−1))
// torch.std is Bessel-corrected by default, which is what verl, TRL and OpenRLHF use for GRPO.

export type StdKind = 'sample' | 'population';

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('mean of an empty list');
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Standard deviation; the sample std of fewer than two values is taken as 0 (nothing to spread). */
export function standardDeviation(values: readonly number[], kind: StdKind): number {
  const n = values.length;
  const divisor = kind === 'sample' ? n - 1 : n;
  if (divisor <= 0) return 0;
  const mu = mean(values);
  let squares = 0;
  for (const value of values) squares += (value - mu) ** 2;
  return Math.sqrt(squares / divisor);
}
