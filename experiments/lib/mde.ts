// The minimum detectable effect an experiment's design had (issue 28 items 2 and 6): from the final
// held-out metric of each arm's runs (one value per seed), the pooled spread between seeds within the arms,
// and the two-arm MDE of src/eval/power.ts at the experiment's own number of seeds per arm (one cold start,
// blocked, α = 0.05 two-sided, power 0.8). The pooled spread already holds the evaluation's sampling
// noise at the size the runs were evaluated at, so it is passed as the RL-seed part with no extra
// evaluation term. Seed pairing (the experiments share pools and held-out sets by seed) is not counted,
// so the MDE is conservative for them, as `curricula plan` says of its own.
import { tQuantile } from '../../src/core/student-t.ts';
import { minimumDetectableEffect, varianceComponents } from '../../src/eval/power.ts';

export interface MdeResult {
  /** Pooled SD between seeds within the arms. */
  sd: number;
  /** Degrees of freedom of the pooled SD: Σ (nᵢ − 1). */
  df: number;
  /** Seeds per arm assumed for the MDE (the smallest arm's count). */
  seeds: number;
  /** Smallest difference of two arms' means the design detects with power 0.8 at α = 0.05. */
  mde: number;
}

/** MDE of two-arm comparisons among `arms` (arm → final values over seeds); null with no spread to pool. */
export function mdeOf(arms: Record<string, readonly number[]>): MdeResult | null {
  const groups = Object.values(arms).filter((values) => values.length >= 2);
  const df = groups.reduce((sum, values) => sum + values.length - 1, 0);
  if (df < 1) return null;
  // power.ts's within-group mean square, arms as the groups; an evaluation of infinite size adds no
  // sampling term, so rlSeed is the pooled variance itself
  const { rlSeed: variance } = varianceComponents(groups, { problems: Number.POSITIVE_INFINITY, samples: 1 });
  const seeds = Math.min(...groups.map((values) => values.length));
  const components = { coldStart: 0, rlSeed: variance, pass: 0, coldStartEstimated: false };
  const design = { coldStarts: 1, rlSeeds: seeds, evalProblems: 1, evalSamples: 1, blocked: true };
  const mde = minimumDetectableEffect(components, design, { alpha: 0.05, power: 0.8 });
  return { sd: Math.sqrt(variance), df, seeds, mde };
}

/** One Markdown line stating the MDE, for an analysis's output (README prose quotes its numbers). */
export function mdeLine(metric: string, arms: Record<string, readonly number[]>): string {
  const result = mdeOf(arms);
  if (result === null) return `Minimum detectable effect on ${metric}: not estimable (no arm has two seeds).`;
  const armCount = Object.values(arms).filter((values) => values.length >= 2).length;
  return (
    `Minimum detectable effect on ${metric} (two arms × ${result.seeds} seeds, α 0.05 two-sided, power 0.8; ` +
    `pooled SD between seeds ${result.sd.toFixed(4)} over ${armCount} arms, ${result.df} df): ` +
    `**±${result.mde.toFixed(3)}**.`
  );
}

export interface PairedResult {
  n: number;
  mean: number;
  sd: number;
  /** Half-width of the two-sided 95% t-interval of the mean difference. */
  half: number;
  /** MDE of the paired design at the observed SD: (t_{0.975, n−1} + t_{0.8, n−1}) · sd / √n. */
  mde: number;
}

/**
 * A paired comparison (one difference per block, e.g. per cold start with one RL seed on each): the mean
 * difference, its 95% t-interval and the MDE of that design at the spread of the differences; null for
 * fewer than two blocks.
 */
export function pairedDifference(differences: readonly number[]): PairedResult | null {
  const n = differences.length;
  if (n < 2) return null;
  const mean = differences.reduce((sum, value) => sum + value, 0) / n;
  const sd = Math.sqrt(differences.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1));
  const se = sd / Math.sqrt(n);
  return { n, mean, sd, half: tQuantile(0.975, n - 1) * se, mde: (tQuantile(0.975, n - 1) + tQuantile(0.8, n - 1)) * se };
}

/** A signed difference with a true minus sign: "+0.123", "−0.123". */
export const signedDifference = (x: number, digits = 3) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`;

/** a − b over the blocks (seeds, cold starts) that both have, in `blocks` order. */
export function pairedDifferences(
  blocks: readonly number[],
  a: ReadonlyMap<number, number>,
  b: ReadonlyMap<number, number>,
): number[] {
  return blocks.filter((block) => a.has(block) && b.has(block)).map((block) => (a.get(block) as number) - (b.get(block) as number));
}

/**
 * The cells "pairs | per block | mean | 95% CI | MDE (verdict)" of a paired comparison's table row
 * (pairedDifference; dashes for fewer than two blocks).
 */
export function pairedCells(differences: readonly number[]): string {
  const result = pairedDifference(differences);
  const each = differences.map((d) => signedDifference(d)).join(', ');
  if (result === null) return `${differences.length} | ${each || '—'} | — | — | —`;
  const ci = `[${signedDifference(result.mean - result.half)}, ${signedDifference(result.mean + result.half)}]`;
  const verdict = Math.abs(result.mean) > result.half ? 'CI excludes 0' : 'CI includes 0';
  return `${result.n} | ${each} | ${signedDifference(result.mean)} | ${ci} | ±${result.mde.toFixed(3)} (${verdict})`;
}
