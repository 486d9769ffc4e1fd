// Power before runs (issue 28 item 2): how many RL seeds × cold starts × evaluation problems an experiment
// needs to detect an effect of a given size on a held-out metric, from the spread of a pilot.
//
// Model of one run's final metric (e.g. eval/pass@1): y = μ_arm + c + r + e, with
//   c ~ (0, σ²_coldStart)  the cold start (pretraining seed) the run starts from,
//   r ~ (0, σ²_rlSeed)     the RL seed given the cold start (its pool, held-out draw and sampling streams),
//   e ~ (0, σ²_eval)       the sampling of the evaluation's completions: p(1 − p)/(N·k) for N problems ×
//                          k samples at pass rate p (binomial; an upper bound, since problems whose rate is
//                          0 or 1 add nothing). The draw of the held-out problems is part of r: each seed
//                          draws its own held-out set.
// A pilot (runs of one setting over seeds, on one or more cold starts) gives the components by a one-way
// random-effects analysis of variance with cold starts as groups (unequal sizes: n₀ of Searle, Casella &
// McCulloch 1992, §3.6): σ²_within = MSW, σ²_coldStart = max(0, (MSB − MSW)/n₀), and σ²_rlSeed =
// max(0, σ²_within − σ²_eval at the pilot's evaluation size).
//
// A comparison of two arms, each with P cold starts × R RL seeds:
//   blocked (the arms share the P cold starts, the usual design here): the cold-start term cancels,
//     Var(Δ) = 2(σ²_rlSeed + σ²_eval)/(P·R), df = 2PR − P − 1 (a two-way layout: blocks and arms);
//   unblocked (each arm its own cold starts): Var(Δ) = 2(σ²_coldStart/P + (σ²_rlSeed + σ²_eval)/(P·R)),
//     df = 2P − 2 when σ²_coldStart > 0 (the cold starts are the replicates), else 2PR − 2.
// The minimum detectable effect of a two-sided test at level α with power 1 − β is
//   MDE = (t_{1−α/2, df} + t_{1−β, df}) · √Var(Δ)
// (the usual normal-approximation formula with t quantiles for few seeds). Pairing the arms by RL seed as
// well (the same pool and held-out problems per seed, as the ladder experiments do) cancels part of
// σ²_rlSeed too; this model does not count that, so its MDE is conservative for such designs.
import { tQuantile } from '../core/student-t.ts';

/** The variance components of a run's final metric (variances, not standard deviations). */
export interface VarianceComponents {
  coldStart: number;
  rlSeed: number;
  /** Mean metric value of the pilot (the pass rate p of the evaluation-noise formula). */
  pass: number;
  /** False when the pilot had one cold start: σ²_coldStart is then unknown and taken as 0. */
  coldStartEstimated: boolean;
}

export interface Design {
  coldStarts: number;
  rlSeeds: number;
  evalProblems: number;
  evalSamples: number;
  /** True: both arms start from the same cold starts (the cold-start term cancels). */
  blocked: boolean;
}

export interface Test {
  /** Two-sided level, e.g. 0.05. */
  alpha: number;
  /** 1 − β, e.g. 0.8. */
  power: number;
}

/** σ²_eval: the sampling variance of a pass rate over `problems` × `samples` completions at rate `pass`. */
export function evalSamplingVariance(pass: number, problems: number, samples: number): number {
  const p = Math.min(1, Math.max(0, pass));
  return (p * (1 - p)) / (problems * samples);
}

/**
 * Variance components from a pilot: `groups[i]` the final metric of the runs on cold start i (one value
 * per RL seed), `evalVariance` σ²_eval at the pilot's evaluation size. Needs two runs on one cold start
 * at least (a within-cold-start spread).
 */
export function varianceComponents(
  groups: readonly (readonly number[])[],
  pilotEval: { problems: number; samples: number },
): VarianceComponents {
  const values = groups.flat();
  const total = values.length;
  const g = groups.filter((group) => group.length > 0).length;
  if (total - g < 1) {
    throw new RangeError(
      `a pilot needs two runs on one cold start at least (a spread between RL seeds); got ${total} run(s) on ${g} cold start(s)`,
    );
  }
  const grand = values.reduce((sum, value) => sum + value, 0) / total;
  let within = 0;
  let between = 0;
  let squares = 0;
  for (const group of groups) {
    if (group.length === 0) continue;
    const mean = group.reduce((sum, value) => sum + value, 0) / group.length;
    for (const value of group) within += (value - mean) ** 2;
    between += group.length * (mean - grand) ** 2;
    squares += group.length ** 2;
  }
  const msw = within / (total - g);
  const evalVariance = evalSamplingVariance(grand, pilotEval.problems, pilotEval.samples);
  const rlSeed = Math.max(0, msw - evalVariance);
  if (g < 2) return { coldStart: 0, rlSeed, pass: grand, coldStartEstimated: false };
  const msb = between / (g - 1);
  const n0 = (total - squares / total) / (g - 1);
  return { coldStart: Math.max(0, (msb - msw) / n0), rlSeed, pass: grand, coldStartEstimated: true };
}

/** Var(Δ) of the difference of two arms' means, and its degrees of freedom. */
export function differenceVariance(
  components: VarianceComponents,
  design: Design,
): { variance: number; df: number } {
  const { coldStarts: p, rlSeeds: r } = design;
  const runNoise =
    components.rlSeed + evalSamplingVariance(components.pass, design.evalProblems, design.evalSamples);
  if (design.blocked) return { variance: (2 * runNoise) / (p * r), df: 2 * p * r - p - 1 };
  const variance = 2 * (components.coldStart / p + runNoise / (p * r));
  return { variance, df: components.coldStart > 0 ? 2 * p - 2 : 2 * p * r - 2 };
}

/** The minimum detectable effect of a design (NaN where the design leaves no degrees of freedom). */
export function minimumDetectableEffect(components: VarianceComponents, design: Design, test: Test): number {
  const { variance, df } = differenceVariance(components, design);
  if (df < 1) return Number.NaN;
  return (tQuantile(1 - test.alpha / 2, df) + tQuantile(test.power, df)) * Math.sqrt(variance);
}

/** The fewest RL seeds per cold start (≤ maxSeeds) whose MDE is at most `effect`; null when none is. */
export function seedsNeeded(
  components: VarianceComponents,
  design: Omit<Design, 'rlSeeds'>,
  test: Test,
  effect: number,
  maxSeeds: number,
): number | null {
  for (let rlSeeds = 1; rlSeeds <= maxSeeds; rlSeeds++) {
    const mde = minimumDetectableEffect(components, { ...design, rlSeeds }, test);
    if (mde <= effect) return rlSeeds;
  }
  return null;
}
