// The production update path (updatePolicy in update.ts) on a tiny real model: the gradient it hands the
// optimiser must equal the finite-difference gradient of the RL loss, where the loss is computed here
// independently of update.ts and src/algorithms: teacher-forced log-probs of each full sequence (prompt +
// completion) from the float64 reference forward pass in src/testing/policy/test-helpers.ts, the policy
// term of each loss (src/testing/training/rl/reference-loss-terms.ts: PPO-clip, GSPO, SAPO, GMPO, Clip-Cov,
// KL-Cov, NFT, OREAL; online DPO's pair loss here), the k3 KL term and the entropy bonus written from their
// formulas, and the aggregation written from its definition.
// Parameters are perturbed by ±h in float32 (the model's storage) and the difference quotient uses the
// perturbation actually stored, so the finite difference itself is float64-accurate; the tolerance
// (0.1% + 1e-6) is far below what a one-position shift of the per-token weights produces.
import { describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { referenceLogits, referenceLogprobs, stubTokenizer } from '../../testing/policy/test-helpers.ts';
import {
  beta,
  type Completion,
  clipCovOptions,
  dpoBeta,
  dualClipBound,
  epsilonHigh,
  epsilonLow,
  gmpoEpsilon,
  gspoEpsilon,
  klCovOptions,
  policyTerms,
  type Scenario,
  tauNegative,
  tauPositive,
} from '../../testing/training/rl/reference-loss-terms.ts';
import {
  advantages,
  completions,
  contexts,
  everything,
  modelConfig,
  recordingPolicy,
  rewardsOf,
  rlContext,
  sampledGroups,
} from '../../testing/training/rl/update-fixtures.ts';
import { updatePolicy } from './update.ts';

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
    case 'oreal':
      return {};
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

  it("OREAL, recomputed pass: −A·log π over the positives' tokens, −0.5·A over the negatives', with the KL term", async () => {
    await checkGradient({ loss: 'oreal', aggregation: 'token-mean', onPolicy: false });
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
