// The production update path (updatePolicy in update.ts) on a tiny real model: the gradient it hands the
// optimiser must equal the finite-difference gradient of the RL loss, where the loss is computed here
// independently of update.ts and src/algorithms: teacher-forced log-probs of each full sequence (prompt +
// completion) from the float64 reference forward pass in src/testing/policy/test-helpers.ts, the PPO-clip
// term and the k3 KL term written from their formulas, and the aggregation written from its definition.
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
import { referenceLogprobs, stubTokenizer } from '../../testing/policy/test-helpers.ts';
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

interface Scenario {
  /** The policy loss (default ppo-clip). gspo: the sequence ratio s_i, written from its definition. */
  loss?: 'ppo-clip' | 'gspo';
  aggregation: 'token-mean' | 'seq-mean-token-sum-norm' | 'seq-mean-token-mean';
  tokenSumNormaliser?: number;
  /** true: the update's first (on-policy) pass; false: a later pass, which recomputes log-probs. */
  onPolicy: boolean;
}

/** The RL loss at parameters `params`, from the formulas (see the file header). */
function independentLoss(
  params: Map<string, Float32Array>,
  scenario: Scenario,
  oldLogprobs: number[][][],
  refLogprobs: number[][][],
): number {
  const terms: { policy: number; kl: number }[][] = [];
  contexts.forEach((context, g) => {
    completions[g].forEach((completion, i) => {
      const tokens = [...context, ...completion];
      // referenceLogprobs()[j] = log p(tokens[j+1] | tokens[..j]); completion token t is tokens[C + t].
      const all = referenceLogprobs(modelConfig, params, tokens);
      const logprobs = completion.map((_, t) => all[context.length + t - 1]);
      const a = advantages[g][i];
      // GSPO: s_i = exp(mean_t(logp − logp_old)), the same clipped term at every token of the sequence
      const meanLogRatio =
        logprobs.reduce((sum, lp, t) => sum + lp - oldLogprobs[g][i][t], 0) / logprobs.length;
      const s = Math.exp(meanLogRatio);
      const gspoTerm = Math.max(-a * s, -a * Math.min(1 + gspoEpsilon, Math.max(1 - gspoEpsilon, s)));
      terms.push(
        logprobs.map((logprob, t) => {
          const r = Math.exp(logprob - oldLogprobs[g][i][t]);
          let policy = Math.max(-a * r, -a * Math.min(1 + epsilonHigh, Math.max(1 - epsilonLow, r)));
          if (a < 0) policy = Math.min(policy, -a * dualClipBound);
          if (scenario.loss === 'gspo') policy = gspoTerm;
          const logRatio = refLogprobs[g][i][t] - logprob;
          return { policy, kl: Math.exp(logRatio) - 1 - logRatio };
        }),
      );
    });
  });
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const perSequence = terms.map((sequence) => sum(sequence.map((term) => term.policy + beta * term.kl)));
  if (scenario.aggregation === 'token-mean') return sum(perSequence) / sum(terms.map((s) => s.length));
  // seq-mean-token-mean: (1/B) Σ_i (1/|y_i|) Σ_t ℓ_{i,t}
  if (scenario.aggregation === 'seq-mean-token-mean') {
    return sum(perSequence.map((total, i) => total / terms[i].length)) / terms.length;
  }
  // seq-mean-token-sum-norm: (1/B) Σ_i (1/N) Σ_t ℓ_{i,t}
  return sum(perSequence) / (terms.length * scenario.tokenSumNormaliser!);
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
}

function rlContext(policy: PolicyBackend, options: ContextOptions): RlContext {
  const config = rlConfigSchema.parse({
    tasks: [{ task: 'unused', difficulties: [1] }],
    train: { steps: 1, learningRate: 1e-3 },
    algorithm: {
      loss: { name: options.loss },
      kl: { coefficient: options.klCoefficient, estimator: 'k3', mode: 'loss' },
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

function sampledGroup(context: number[], completionTokens: number[][], logprobs: number[][]): SampledGroup {
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
    rewards: completionTokens.map(() => 0),
    results: [],
  };
}

function sampledGroups(oldLogprobs: number[][][]): SampledGroup[] {
  return contexts.map((context, g) => sampledGroup(context, completions[g], oldLogprobs[g]));
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
    lossOptions:
      scenario.loss === 'gspo'
        ? { aggregation: scenario.aggregation, epsilonLow: gspoEpsilon, epsilonHigh: gspoEpsilon }
        : {
            aggregation: scenario.aggregation,
            tokenSumNormaliser: scenario.tokenSumNormaliser,
            epsilonLow,
            epsilonHigh,
            dualClipBound,
          },
    klCoefficient: beta,
    epochs,
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
  const h = 1e-3;
  let compared = 0;
  for (const { name, index } of checks) {
    const values = params.get(name)!;
    const original = values[index];
    const lossWith = (delta: number) => {
      values[index] = Math.fround(original + delta);
      return independentLoss(params, scenario, oldLogprobs, refLogprobs);
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
