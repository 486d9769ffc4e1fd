// Fixtures of the update-path tests (src/training/rl/update-policy.test.ts, update-weights.test.ts): a tiny
// model config, two prompts with three completions of different lengths and their advantages and rewards,
// a PolicyBackend around the embedded one that records what forwardBackward was sent and the gradient
// optimStep would apply (and applies nothing), and the smallest RlContext updatePolicy reads.
import type { AdvantageEstimate } from '../../../algorithms/advantages/estimator.ts';
import { policyLosses } from '../../../algorithms/losses/index.ts';
import type { Datum, PolicyBackend } from '../../../core/policy.ts';
import { Rng } from '../../../core/rng.ts';
import type { Attempt } from '../../../guidance/guidance.ts';
import type { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import type { ModelConfig } from '../../../policy/model-config.ts';
import { rlConfigSchema } from '../../../training/rl/config.ts';
import type { RlContext } from '../../../training/rl/context.ts';
import type { SampledGroup } from '../../../training/rl/rollout.ts';

export const modelConfig: ModelConfig = { vocabSize: 8, dModel: 16, layers: 1, heads: 2, contextLength: 16 };

// Two prompts of different lengths; three completions of different lengths (so a shift between prompt and
// completion, or along the completion, moves weights onto other tokens).
export const contexts = [
  [1, 3, 4],
  [1, 5, 3, 6],
];
export const completions = [
  [
    [5, 6, 7, 2],
    [4, 4, 2],
  ],
  [[3, 3, 5, 6, 2]],
];
export const advantages = [[1.2, -0.7], [0.5]];
// Rewards of the three completions (NFT reads them: group 0 has r̂ = 1/2, group 1 r̂ = 1 → 0.98).
export const rewardsOf = [[1, 0], [1]];
export const everything: AdvantageEstimate = { advantages, included: [[true, true], [true]] };
/** A PolicyBackend around the embedded one whose optimStep records the gradient and applies nothing. */
export function recordingPolicy(backend: EmbeddedBackend) {
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

export interface ContextOptions {
  loss: string;
  lossOptions: Record<string, unknown>;
  klCoefficient: number;
  epochs: number;
  entropyCoefficient?: number;
  entropyEstimator?: 'exact' | 'sampled';
  klRewardGuided?: boolean;
}

export function rlContext(policy: PolicyBackend, options: ContextOptions): RlContext {
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

export function sampledGroup(
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

export function sampledGroups(oldLogprobs: number[][][]): SampledGroup[] {
  return contexts.map((context, g) => sampledGroup(context, completions[g], oldLogprobs[g], rewardsOf[g]));
}
