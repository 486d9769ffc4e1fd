// The production update path (updatePolicy in update.ts) on a tiny real model: the gradient it hands the
// optimiser must equal the finite-difference gradient of the RL loss, where the loss is computed here
// independently of update.ts and src/algorithms: teacher-forced log-probs of each full sequence (prompt +
// completion) from the float64 reference forward pass in src/testing/policy/test-helpers.ts, the policy
// term of each loss (PPO-clip, GSPO, SAPO, GMPO, Clip-Cov, KL-Cov) and the k3 KL term written from their
// formulas, and the aggregation written from its definition.
// Parameters are perturbed by ±h in float32 (the model's storage) and the difference quotient uses the
// perturbation actually stored, so the finite difference itself is float64-accurate; the tolerance
// (0.1% + 1e-6) is far below what a one-position shift of the per-token weights produces.
import { describe, expect, it } from 'vitest';
import type { AdvantageEstimate } from '../../algorithms/advantages/estimator.ts';
import { advantageEstimators } from '../../algorithms/advantages/index.ts';
import { policyLosses } from '../../algorithms/losses/index.ts';
import type { Datum, PolicyBackend } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import type { Attempt } from '../../guidance/guidance.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import type { ModelConfig } from '../../policy/model-config.ts';
import { referenceLogits, referenceLogprobs, stubTokenizer } from '../../testing/policy/test-helpers.ts';
import { rlConfigSchema } from './config.ts';
import type { RlContext } from './context.ts';
import type { SampledGroup } from './rollout.ts';
import { updatePolicy } from './update.ts';

const modelConfig: ModelConfig = { vocabSize: 8, dModel: 16, layers: 1, heads: 2, contextLength: 16 };

// Two prompts of different lengths; three completions of different lengths (so a shift between prompt and
// completion, or along the completion, moves weights onto other tokens).
const contexts = [
  [1, 3, 4],
  [1, 5, 3, 6],
];
const completions = [
  [
    [5, 6, 7, 2],
    [4, 4, 2],
  ],
  [[3, 3, 5, 6, 2]],
];
const advantages = [[1.2, -0.7], [0.5]];
// Rewards of the three completions (NFT reads them: group 0 has r̂ = 1/2, group 1 r̂ = 1 → 0.98).
const rewardsOf = [[1, 0], [1]];
const everything: AdvantageEstimate = { advantages, included: [[true, true], [true]] };
// Per-token offsets of the reference policy's log-probs from the current ones (k3 terms well away from 0).
const refOffsets = [
  [
    [0.4, -0.3, 0.5, -0.2],
    [0.3, 0.6, -0.4],
  ],
  [[-0.5, 0.2, 0.35, -0.25, 0.45]],
];
// Sampling-time log-prob offsets for the off-policy pass (old = current + offset, ratio = exp(−offset)):
// some ratios inside the clip range, some clipped (1.82 with A > 0; 0.55 with A < 0), none near a bound.
const oldOffsets = [
  [
    [0.05, -0.6, 0.02, -0.04],
    [0.6, 0.03, -0.05],
  ],
  [[0.01, -0.03, 0.6, 0.04, -0.02]],
];

const epsilonLow = 0.2;
const epsilonHigh = 0.28;
const dualClipBound = 3;
const beta = 0.5;

/** GSPO's clip range in its gradient test: wide enough that some sequences are clipped and some not. */
const gspoEpsilon = 0.1;
/** SAPO's gate temperatures: far enough apart that using one for the other moves the gradient. */
const tauPositive = 1;
const tauNegative = 3;
/** GMPO's log-ratio range: the ±0.6 offsets fall outside it, the others inside. */
const gmpoEpsilon = 0.4;
/** Clip-Cov with every candidate stopped (ratio 1), candidates 0 < cov < 100 that PPO (ε 0.2) did not clip. */
const clipCovOptions = { ratio: 1, lowerBound: 0, upperBound: 100, epsilonLow: 0.2, epsilonHigh: 0.2 };
/** Online DPO's β (not TRL's 0.1: large enough that σ(z) moves with the parameters). */
const dpoBeta = 0.7;
/** KL-Cov penalising ⌊0.3 · 12⌋ = 3 of the 12 completion tokens with weight 0.5. */
const klCovOptions = { ratio: 0.3, coefficient: 0.5 };

type LossName = 'ppo-clip' | 'gspo' | 'sapo' | 'gmpo' | 'clip-cov' | 'kl-cov' | 'nft' | 'online-dpo';

interface Scenario {
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
interface Completion {
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
function clippedTerm(a: number, r: number, low: number, high: number): number {
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
function policyTerms(
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

/** Every completion's log-probs at `params` (float64 reference forward), π_old's and its advantage. */
function completionBatch(params: Map<string, Float32Array>, oldLogprobs: number[][][]): Completion[] {
  return contexts.flatMap((context, g) =>
    completions[g].map((completion, i) => {
      // referenceLogprobs()[j] = log p(tokens[j+1] | tokens[..j]); completion token t is tokens[C + t].
      const tokens = [...context, ...completion];
      const all = referenceLogprobs(modelConfig, params, tokens);
      const logprobs = completion.map((_, t) => all[context.length + t - 1]);
      const logits = referenceLogits(modelConfig, params, tokens.slice(0, -1));
      const entropies = completion.map((_, t) => {
        const row = logits[context.length + t - 1];
        const max = Math.max(...row);
        const logSum = max + Math.log(row.reduce((sum, z) => sum + Math.exp(z - max), 0));
        return -row.reduce((sum, z) => sum + Math.exp(z - logSum) * (z - logSum), 0);
      });
      return {
        logprobs,
        oldLogprobs: oldLogprobs[g][i],
        advantage: advantages[g][i],
        reward: rewardsOf[g][i],
        groupRewards: rewardsOf[g],
        entropies,
      };
    }),
  );
}

/** The RL loss at parameters `params`, from the formulas (see the file header). */
function independentLoss(
  params: Map<string, Float32Array>,
  scenario: Scenario,
  oldLogprobs: number[][][],
  refLogprobs: number[][][],
  selection: readonly Completion[],
): number {
  const batch = completionBatch(params, oldLogprobs);
  const refs = contexts.flatMap((_, g) => refLogprobs[g]);
  const klTerms = batch.map(({ logprobs }, k) =>
    logprobs.map((logprob, t) => {
      const logRatio = refs[k][t] - logprob;
      return Math.exp(logRatio) - 1 - logRatio;
    }),
  );
  const policy = policyTerms(scenario.loss ?? 'ppo-clip', batch, selection);
  const entropyBeta = scenario.entropyCoefficient ?? 0;
  const klOn = (i: number) => (scenario.klRewardGuided && batch[i].reward >= 1 ? 0 : 1);
  const terms = policy.map((row, i) =>
    row.map((value, t) => value + klOn(i) * beta * klTerms[i][t] - entropyBeta * batch[i].entropies[t]),
  );
  const perSequence = terms.map((row) => row.reduce((total, value) => total + value, 0));
  return aggregated(scenario, terms, perSequence) + pairLoss(scenario, batch, refs);
}

/** The aggregation of per-token terms (see Scenario.aggregation). */
function aggregated(scenario: Scenario, terms: number[][], perSequence: number[]): number {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  if (scenario.aggregation === 'token-mean') return sum(perSequence) / sum(terms.map((s) => s.length));
  // seq-mean-token-mean: (1/B) Σ_i (1/|y_i|) Σ_t ℓ_{i,t}
  if (scenario.aggregation === 'seq-mean-token-mean') {
    return sum(perSequence.map((total, i) => total / terms[i].length)) / terms.length;
  }
  // seq-mean-token-sum-norm: (1/B) Σ_i (1/N) Σ_t ℓ_{i,t}
  return sum(perSequence) / (terms.length * scenario.tokenSumNormaliser!);
}

/** Online DPO's −log σ(β(Δ_w − Δ_l)) on group 0's pair (rewards 1, 0); group 1 has one member, no pair. */
function pairLoss(scenario: Scenario, batch: readonly Completion[], refs: number[][]): number {
  if (scenario.loss !== 'online-dpo') return 0;
  const delta = (k: number) => batch[k].logprobs.reduce((sum, lp, t) => sum + lp - refs[k][t], 0);
  const z = dpoBeta * (delta(0) - delta(1));
  return Math.log1p(Math.exp(-z));
}

/** A PolicyBackend around the embedded one whose optimStep records the gradient and applies nothing. */
function recordingPolicy(backend: EmbeddedBackend) {
  const gradients: Map<string, Float32Array>[] = [];
  const data: Datum[][] = [];
  const policy: PolicyBackend = {
    tokenizer: backend.tokenizer,
    contextLength: backend.contextLength,
    sample: (prompts, options) => backend.sample(prompts, options),
    forward: (sequences) => backend.forward(sequences),
    forwardBackward: (datums, loss) => {
      data.push(datums);
      return backend.forwardBackward(datums, loss);
    },
    optimStep: async () => {
      gradients.push(backend.gradientValues());
      backend.zeroGradients();
      return { gradNorm: 0, step: gradients.length };
    },
    save: (dir) => backend.save(dir),
  };
  return { policy, gradients, data };
}

interface ContextOptions {
  loss: string;
  lossOptions: Record<string, unknown>;
  klCoefficient: number;
  epochs: number;
  entropyCoefficient?: number;
  entropyEstimator?: 'exact' | 'sampled';
  klRewardGuided?: boolean;
}

function rlContext(policy: PolicyBackend, options: ContextOptions): RlContext {
  const config = rlConfigSchema.parse({
    tasks: [{ task: 'unused', difficulties: [1] }],
    train: { steps: 1, learningRate: 1e-3 },
    algorithm: {
      loss: { name: options.loss },
      kl: {
        coefficient: options.klCoefficient,
        estimator: 'k3',
        mode: 'loss',
        rewardGuided: options.klRewardGuided ?? false,
      },
      entropy: {
        coefficient: options.entropyCoefficient ?? 0,
        estimator: options.entropyEstimator ?? 'exact',
      },
      epochs: options.epochs,
    },
  });
  const loss = policyLosses.get(options.loss);
  // updatePolicy reads config, policy, loss, lossOptions and rng only.
  return {
    config,
    policy,
    loss,
    lossOptions: loss.resolveOptions(options.lossOptions),
    rng: new Rng(5),
  } as unknown as RlContext;
}

function sampledGroup(
  context: number[],
  completionTokens: number[][],
  logprobs: number[][],
  rewards: number[] = completionTokens.map(() => 0),
): SampledGroup {
  return {
    attempt: {} as Attempt,
    context,
    rollouts: completionTokens.map((tokens, i) => ({
      tokens,
      text: '',
      logprobs: logprobs[i],
      samplingLogprobs: logprobs[i],
      stopReason: 'eos' as const,
    })),
    completions: completionTokens.map(() => ''),
    rewards,
    results: [],
  };
}

function sampledGroups(oldLogprobs: number[][][]): SampledGroup[] {
  return contexts.map((context, g) => sampledGroup(context, completions[g], oldLogprobs[g], rewardsOf[g]));
}

/** The options of each loss in its scenario (the aggregation is added to them). */
function lossOptions(scenario: Scenario): Record<string, unknown> {
  switch (scenario.loss ?? 'ppo-clip') {
    case 'gspo':
      return { epsilonLow: gspoEpsilon, epsilonHigh: gspoEpsilon };
    case 'sapo':
      return { tauPositive, tauNegative };
    case 'gmpo':
      return { epsilonLow: gmpoEpsilon, epsilonHigh: gmpoEpsilon };
    case 'clip-cov':
      return clipCovOptions;
    case 'kl-cov':
      return klCovOptions;
    case 'nft':
      return { tokenSumNormaliser: scenario.tokenSumNormaliser };
    case 'online-dpo':
      return { tokenSumNormaliser: scenario.tokenSumNormaliser, beta: dpoBeta };
    case 'ppo-clip':
      return { tokenSumNormaliser: scenario.tokenSumNormaliser, epsilonLow, epsilonHigh, dualClipBound };
  }
}

async function checkGradient(scenario: Scenario): Promise<void> {
  const backend = await EmbeddedBackend.create(modelConfig, stubTokenizer(8), 11);
  // Current completion log-probs [group][sample][token] from the backend's own forward pass.
  const flat = await backend.forward(
    contexts.flatMap((context, g) => completions[g].map((completion) => [...context, ...completion])),
  );
  let offset = 0;
  const current = contexts.map((context, g) =>
    completions[g].map(() => flat[offset++].slice(context.length - 1)),
  );
  const shifted = (offsets: number[][][]) =>
    current.map((group, g) => group.map((row, i) => row.map((value, t) => value + offsets[g][i][t])));
  // On-policy the sampling-time log-probs are the current ones (what sampling returns).
  const oldLogprobs = scenario.onPolicy ? current : shifted(oldOffsets);
  const refLogprobs = shifted(refOffsets);

  const { policy, gradients, data } = recordingPolicy(backend);
  // Two epochs with an optimiser that applies nothing: the second pass sees the same parameters and
  // recomputes the log-probs with a forward pass, as every pass after the first does.
  const epochs = scenario.onPolicy ? 1 : 2;
  const context = rlContext(policy, {
    loss: scenario.loss ?? 'ppo-clip',
    lossOptions: { aggregation: scenario.aggregation, ...lossOptions(scenario) },
    klCoefficient: beta,
    epochs,
    entropyCoefficient: scenario.entropyCoefficient,
    klRewardGuided: scenario.klRewardGuided,
  });
  const result = await updatePolicy(context, sampledGroups(oldLogprobs), everything, 1e-3, refLogprobs);
  expect(result.trainedSequences).toBe(3);
  expect(gradients).toHaveLength(epochs);
  expect(data.at(-1)!.map((datum) => datum.tokens.length)).toHaveLength(3);
  const gradient = gradients.at(-1)!;

  // The largest production-gradient entry of each tensor, plus fixed entries of the embeddings and head.
  const checks: { name: string; index: number }[] = [];
  for (const [name, values] of gradient) {
    let best = 0;
    values.forEach((value, index) => {
      if (Math.abs(value) > Math.abs(values[best])) best = index;
    });
    checks.push({ name, index: best });
  }
  checks.push({ name: 'wte.weight', index: 5 * 16 + 3 }, { name: 'lm_head.weight', index: 7 * 8 + 6 });
  const params = backend.model.parameterValues();
  const selection = completionBatch(params, oldLogprobs);
  const h = 1e-3;
  let compared = 0;
  for (const { name, index } of checks) {
    const values = params.get(name)!;
    const original = values[index];
    const lossWith = (delta: number) => {
      values[index] = Math.fround(original + delta);
      return independentLoss(params, scenario, oldLogprobs, refLogprobs, selection);
    };
    const plus = lossWith(h);
    const stepUp = values[index] - original;
    const minus = lossWith(-h);
    const stepDown = values[index] - original;
    values[index] = original;
    const numeric = (plus - minus) / (stepUp - stepDown);
    const analytic = gradient.get(name)![index];
    expect(Math.abs(numeric - analytic), `${name}[${index}]: ${analytic} vs ${numeric}`).toBeLessThan(
      1e-3 * Math.abs(numeric) + 1e-6,
    );
    if (Math.abs(numeric) > 1e-3) compared++;
  }
  // Enough entries with a real gradient for the comparison to mean something.
  expect(compared).toBeGreaterThanOrEqual(8);
  backend.dispose();
}

describe('updatePolicy on a tiny model: the accumulated gradient is the gradient of the RL loss', () => {
  it('first (on-policy) pass, PPO-clip + β·k3, token-mean', async () => {
    await checkGradient({ aggregation: 'token-mean', onPolicy: true });
  });

  it('recomputed pass (off-policy, clipped tokens), seq-mean-token-sum-norm with N = 32 for both terms', async () => {
    await checkGradient({ aggregation: 'seq-mean-token-sum-norm', tokenSumNormaliser: 32, onPolicy: false });
  });

  it('GSPO, recomputed pass: the sequence ratio (one sequence unclipped, two clipped at ε 0.1), seq-mean-token-mean', async () => {
    await checkGradient({ loss: 'gspo', aggregation: 'seq-mean-token-mean', onPolicy: false });
  });

  it('GSPO, first (on-policy) pass: s = 1 for every sequence', async () => {
    await checkGradient({ loss: 'gspo', aggregation: 'seq-mean-token-mean', onPolicy: true });
  });

  it('SAPO, recomputed pass: the gate at ratios 0.55…1.82, τ_neg on the negative-advantage sequence', async () => {
    await checkGradient({ loss: 'sapo', aggregation: 'seq-mean-token-mean', onPolicy: false });
  });

  it('SAPO, first (on-policy) pass: slope 1 at r = 1', async () => {
    await checkGradient({ loss: 'sapo', aggregation: 'token-mean', onPolicy: true });
  });

  it('GMPO, recomputed pass: the geometric mean with the ±0.6 log-ratios held or followed by the sign of A', async () => {
    await checkGradient({ loss: 'gmpo', aggregation: 'seq-mean-token-mean', onPolicy: false });
  });

  it('Clip-Cov, recomputed pass: the positive-covariance tokens PPO did not clip carry nothing', async () => {
    await checkGradient({ loss: 'clip-cov', aggregation: 'token-mean', onPolicy: false });
  });

  it('KL-Cov, recomputed pass: |log r| on the three largest covariances, no clip elsewhere', async () => {
    await checkGradient({ loss: 'kl-cov', aggregation: 'token-mean', onPolicy: false });
  });

  it('NFT, recomputed pass: positives −(1 − r̂)·log R, negatives through the straight-through clamp, seq-mean-token-sum-norm N 32', async () => {
    await checkGradient({
      loss: 'nft',
      aggregation: 'seq-mean-token-sum-norm',
      tokenSumNormaliser: 32,
      onPolicy: false,
    });
  });

  it('online DPO, recomputed pass: the pair of group 0 against the reference, with the KL term in seq-mean-token-sum-norm', async () => {
    await checkGradient({
      loss: 'online-dpo',
      aggregation: 'seq-mean-token-sum-norm',
      tokenSumNormaliser: 32,
      onPolicy: false,
    });
  });

  it('NFT, first (on-policy) pass: weights −(1 − r̂) and +r̂', async () => {
    await checkGradient({ loss: 'nft', aggregation: 'token-mean', onPolicy: true });
  });

  it('exact entropy bonus −β·H (β 0.3) on PPO-clip, recomputed pass, seq-mean-token-mean like the loss', async () => {
    await checkGradient({ aggregation: 'seq-mean-token-mean', onPolicy: false, entropyCoefficient: 0.3 });
  });

  it('KDRL reward-guided KL: the reward-1 completions keep their tokens in the normaliser but no KL term', async () => {
    await checkGradient({ aggregation: 'token-mean', onPolicy: false, klRewardGuided: true });
  });

  it('exact entropy bonus on the first (on-policy) pass, token-mean', async () => {
    await checkGradient({ aggregation: 'token-mean', onPolicy: true, entropyCoefficient: 0.3 });
  });
});

describe('updatePolicy with the sampled entropy estimator', () => {
  it('sends the loss weights plus β·c·logp on each completion token (on-policy, r = 1), no entropy weights', async () => {
    const backend = await EmbeddedBackend.create(modelConfig, stubTokenizer(8), 11);
    const { policy, data } = recordingPolicy(backend);
    const flat = await backend.forward(
      contexts.flatMap((context, g) => completions[g].map((completion) => [...context, ...completion])),
    );
    let offset = 0;
    const current = contexts.map((context, g) =>
      completions[g].map(() => flat[offset++].slice(context.length - 1)),
    );
    const context = rlContext(policy, {
      loss: 'importance-sampling',
      lossOptions: {},
      klCoefficient: 0,
      epochs: 1,
      entropyCoefficient: 0.4,
      entropyEstimator: 'sampled',
    });
    const result = await updatePolicy(context, sampledGroups(current), everything, 1e-3, null);
    // token-mean over the 12 completion tokens: c = 1/12; importance-sampling on-policy: −A·c
    const sent = data[0];
    let k = 0;
    contexts.forEach((ctx, g) => {
      completions[g].forEach((completion, i) => {
        const datum = sent[k++];
        expect(datum.entropyWeights).toBeUndefined();
        expect(datum.weights.slice(0, ctx.length - 1).every((w) => w === 0)).toBe(true);
        completion.forEach((_, t) => {
          const logp = current[g][i][t];
          const expected = -advantages[g][i] / 12 + (0.4 / 12) * logp;
          expect(datum.weights[ctx.length - 1 + t]).toBeCloseTo(expected, 6);
        });
      });
    });
    const mean = -current.flat(2).reduce((sum, value) => sum + value, 0) / 12;
    expect(result.metrics['losses/entropy']).toBeCloseTo(mean, 6);
    backend.dispose();
  });
});

describe('updatePolicy with a rejecting estimator: which samples count in the token-mean normaliser', () => {
  // Completions of 3 and 5 tokens (rewards 1, 0) and of 2 and 4 tokens (rewards 0, 1): 14 tokens, of
  // which the positive samples have 3 + 4 = 7. Importance-sampling loss on-policy: w = −A · c.
  const groups = () => [
    sampledGroup(
      [1, 3],
      [
        [4, 4, 2],
        [5, 5, 5, 5, 2],
      ],
      [
        [-1, -1, -1],
        [-1, -1, -1, -1, -1],
      ],
    ),
    sampledGroup(
      [1, 4, 5],
      [
        [3, 2],
        [6, 6, 6, 2],
      ],
      [
        [-1, -1],
        [-1, -1, -1, -1],
      ],
    ),
  ];
  const raftRewards = [
    [1, 0],
    [0, 1],
  ];

  async function sentWeights(estimator: string, rewards: number[][], options: Record<string, unknown>) {
    const data: Datum[] = [];
    const policy = {
      forwardBackward: async (datums: Datum[]) => {
        data.push(...datums);
        return { loss: 0, logprobs: [], tokens: 0 };
      },
      optimStep: async () => ({ gradNorm: 0, step: 1 }),
    } as unknown as PolicyBackend;
    const context = rlContext(policy, {
      loss: 'importance-sampling',
      lossOptions: { aggregation: 'token-mean' },
      klCoefficient: 0,
      epochs: 1,
    });
    const estimate = advantageEstimators.get(estimator).estimate(
      rewards.map((group) => ({ rewards: group })),
      options,
    );
    await updatePolicy(context, groups(), estimate, 1e-3, null);
    // By completion (the batch order is shuffled): the weights of the completion tokens only.
    const byTokens = new Map(data.map((datum) => [datum.tokens.join(','), datum.weights]));
    return groups().map((group) =>
      group.rollouts.map((rollout) => {
        const weights = byTokens.get([...group.context, ...rollout.tokens].join(','));
        // + 0 turns −0 (−A·c with A = 0) into 0 for toEqual.
        return weights?.slice(group.context.length - 1).map((weight) => weight + 0);
      }),
    );
  }

  it("RAFT (authors' code): rejected samples stay with weight 0, kept tokens get −1/14", async () => {
    const k = -1 / 14;
    expect(await sentWeights('raft', raftRewards, {})).toEqual([
      [
        [k, k, k],
        [0, 0, 0, 0, 0],
      ],
      [
        [0, 0],
        [k, k, k, k],
      ],
    ]);
  });

  it("RAFT rejected: 'drop': only the kept samples are sent, −1/7 per token", async () => {
    const k = -1 / 7;
    expect(await sentWeights('raft', raftRewards, { rejected: 'drop' })).toEqual([
      [[k, k, k], undefined],
      [undefined, [k, k, k, k]],
    ]);
  });

  it('Reinforce-Rej: an all-equal group stays in the normaliser with weight 0 (14 tokens, not 8)', async () => {
    // rewards (1, 0) → A = ±0.5, w = ∓0.5/14; (1, 1) rejected → A = 0 but its 6 tokens still count.
    const rewards = [
      [1, 0],
      [1, 1],
    ];
    const kept = await sentWeights('reinforce-rej', rewards, {});
    expect(kept).toEqual([
      [new Array(3).fill(-0.5 / 14), new Array(5).fill(0.5 / 14)],
      [
        [0, 0],
        [0, 0, 0, 0],
      ],
    ]);
    const dropped = await sentWeights('reinforce-rej', rewards, { rejected: 'drop' });
    expect(dropped).toEqual([
      [new Array(3).fill(-0.5 / 8), new Array(5).fill(0.5 / 8)],
      [undefined, undefined],
    ]);
  });
});
