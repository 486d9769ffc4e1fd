// The policy terms of every loss in the update-path gradient test (src/training/rl/update-policy.test.ts),
// written from the methods' definitions without src/algorithms: PPO-clip, GSPO's sequence ratio, SAPO's
// gate, GMPO's geometric mean, Clip-Cov's and KL-Cov's covariance selections, NFT's straight-through
// surrogate, OREAL's class-normalised terms (online DPO's pair loss is added after the aggregation, in the
// test), with the options the
// test runs each loss under.

export const epsilonLow = 0.2;
export const epsilonHigh = 0.28;
export const dualClipBound = 3;
export const beta = 0.5;

/** GSPO's clip range in its gradient test: wide enough that some sequences are clipped and some not. */
export const gspoEpsilon = 0.1;
/** SAPO's gate temperatures: far enough apart that using one for the other moves the gradient. */
export const tauPositive = 1;
export const tauNegative = 3;
/** GMPO's log-ratio range: the ±0.6 offsets fall outside it, the others inside. */
export const gmpoEpsilon = 0.4;
/** Clip-Cov with every candidate stopped (ratio 1), candidates 0 < cov < 100 that PPO (ε 0.2) did not clip. */
export const clipCovOptions = { ratio: 1, lowerBound: 0, upperBound: 100, epsilonLow: 0.2, epsilonHigh: 0.2 };
/** Online DPO's β (not TRL's 0.1: large enough that σ(z) moves with the parameters). */
export const dpoBeta = 0.7;
/** KL-Cov penalising ⌊0.3 · 12⌋ = 3 of the 12 completion tokens with weight 0.5. */
export const klCovOptions = { ratio: 0.3, coefficient: 0.5 };

export type LossName =
  | 'ppo-clip'
  | 'gspo'
  | 'sapo'
  | 'gmpo'
  | 'clip-cov'
  | 'kl-cov'
  | 'nft'
  | 'online-dpo'
  | 'oreal';

export interface Scenario {
  /** The policy loss (default ppo-clip), each written here from its definition (see policyTerms). */
  loss?: LossName;
  aggregation: 'token-mean' | 'seq-mean-token-sum-norm' | 'seq-mean-token-mean';
  tokenSumNormaliser?: number;
  /** true: the update's first (on-policy) pass; false: a later pass, which recomputes log-probs. */
  onPolicy: boolean;
  /** β of the exact entropy bonus (algorithm.entropy): −β·H_t joins every token's term. */
  entropyCoefficient?: number;
  /** algorithm.kl.rewardGuided (KDRL): no KL term on the completions with reward ≥ 1. */
  klRewardGuided?: boolean;
}

/** One completion at the perturbed parameters: its log-probs, π_old's, its advantage and entropies. */
export interface Completion {
  logprobs: number[];
  oldLogprobs: number[];
  advantage: number;
  reward: number;
  groupRewards: number[];
  /** H_t of the next-token distribution at each completion token (softmax of the float64 logits). */
  entropies: number[];
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** PPO's clipped term at one token (no dual clip). */
export function clippedTerm(a: number, r: number, low: number, high: number): number {
  return Math.max(-a * r, -a * Math.min(1 + high, Math.max(1 - low, r)));
}

/**
 * The policy-loss term of every completion token under `loss`, from the methods' definitions (GSPO's
 * sequence ratio, SAPO's gate, GMPO's geometric mean, Clip-Cov's and KL-Cov's covariance selections),
 * written without src/algorithms. A sequence-level loss puts its sequence's value at every token.
 * Which tokens Clip-Cov and KL-Cov select is computed from `selection`, the batch at the unperturbed
 * parameters: the methods select under a stop-gradient, so the selection is held fixed in the finite
 * differences (the covariances of this tiny model are close enough for a ±h step to reorder them).
 */
export function policyTerms(
  loss: LossName,
  batch: readonly Completion[],
  selection: readonly Completion[],
): number[][] {
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const logRatios = batch.map(({ logprobs, oldLogprobs }) => logprobs.map((lp, t) => lp - oldLogprobs[t]));
  // cov_t = (A_t − mean A)(logp_t − mean logp) over every completion token of the batch
  const allAdvantages = selection.flatMap(({ logprobs, advantage }) => logprobs.map(() => advantage));
  const allLogprobs = selection.flatMap(({ logprobs }) => logprobs);
  const meanA = mean(allAdvantages);
  const meanLogp = mean(allLogprobs);
  const covariance = selection.map(({ logprobs, advantage }) =>
    logprobs.map((lp) => (advantage - meanA) * (lp - meanLogp)),
  );
  const klCovSelected = new Set(
    covariance
      .flatMap((row, i) => row.map((cov, t) => ({ cov, key: `${i}:${t}` })))
      .sort((x, y) => y.cov - x.cov)
      .slice(0, Math.floor(klCovOptions.ratio * allLogprobs.length))
      .map((entry) => entry.key),
  );
  return batch.map(({ advantage: a }, i) => {
    const l = logRatios[i];
    if (loss === 'gspo') {
      const s = Math.exp(mean(l));
      return l.map(() => Math.max(-a * s, -a * Math.min(1 + gspoEpsilon, Math.max(1 - gspoEpsilon, s))));
    }
    if (loss === 'oreal') {
      // Positives (reward ≥ 1): −A·log π over the positives' N⁺ tokens; negatives: −0.5·A·exp(logp − sg logp)
      // over N⁻, the stop-gradient taken at the unperturbed parameters. Under token-mean (÷ N) the per-token
      // terms carry N/N⁺ and N/N⁻.
      const count = (positive: boolean) =>
        batch.reduce((sum, c) => sum + (c.reward >= 1 === positive ? c.logprobs.length : 0), 0);
      const total = count(true) + count(false);
      const { reward, logprobs } = batch[i];
      if (reward >= 1) return logprobs.map((lp) => (-a * lp * total) / count(true));
      return logprobs.map(
        (lp, t) => (-0.5 * a * Math.exp(lp - selection[i].logprobs[t]) * total) / count(false),
      );
    }
    // Online DPO is a loss on the pair, added after the aggregation (independentLoss).
    if (loss === 'online-dpo') return l.map(() => 0);
    if (loss === 'nft') {
      // r̂: the group's share of correct (reward ≥ 1) members, clamped to [0.02, 0.98]; normalise (1 − r̂).
      const { reward, groupRewards } = batch[i];
      const share = groupRewards.filter((r) => r >= 1).length / groupRewards.length;
      const rate = Math.min(0.98, Math.max(0.02, share));
      if (reward >= 1) return l.map((x) => -(1 - rate) * x);
      // The straight-through clamp: −(1 − r̂)·c/sg[max(c, 1)], c = (1 − r̂R)/(1 − r̂), the held value taken
      // at the unperturbed parameters, so the gradient is (1 − r̂)·r̂R/((1 − r̂)·max(c, 1)).
      const base = selection[i];
      return l.map((x, t) => {
        const proxy = (value: number) => (1 - rate * Math.exp(value)) / (1 - rate);
        const held = Math.max(proxy(base.logprobs[t] - base.oldLogprobs[t]), 1);
        return (-(1 - rate) * proxy(x)) / held;
      });
    }
    if (loss === 'gmpo') {
      const sign = Math.sign(a);
      const m = l.map((x) => {
        const clamped = Math.min(gmpoEpsilon, Math.max(-gmpoEpsilon, x));
        return sign * Math.min(sign * x, sign * clamped);
      });
      const rho = Math.exp(mean(m));
      return l.map(() => -a * rho);
    }
    return l.map((x, t) => {
      const r = Math.exp(x);
      if (loss === 'sapo') {
        const tau = a > 0 ? tauPositive : tauNegative;
        return -a * sigmoid(tau * (r - 1)) * (4 / tau);
      }
      if (loss === 'clip-cov') {
        const { epsilonLow: low, epsilonHigh: high, lowerBound, upperBound } = clipCovOptions;
        const base = selection[i];
        const r0 = Math.exp(base.logprobs[t] - base.oldLogprobs[t]);
        const ppoClipped = -a * Math.min(1 + high, Math.max(1 - low, r0)) > -a * r0;
        const candidate = covariance[i][t] > lowerBound && covariance[i][t] < upperBound && !ppoClipped;
        return candidate ? 0 : clippedTerm(a, r, low, high);
      }
      if (loss === 'kl-cov') {
        return -a * r + (klCovSelected.has(`${i}:${t}`) ? klCovOptions.coefficient * Math.abs(x) : 0);
      }
      const policy = clippedTerm(a, r, epsilonLow, epsilonHigh);
      return a < 0 ? Math.min(policy, -a * dualClipBound) : policy;
    });
  });
}
