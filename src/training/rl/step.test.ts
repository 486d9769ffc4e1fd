// rlStep from sampling to the weights it sends the backend, with a stub policy and reward: the advantage
// estimator must see each completion's length (REINFORCE++ whitens over tokens), and the update must
// carry the resulting advantages onto the right completion tokens.
import { describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import type { Reward, RewardInput } from '../../core/reward.ts';
import { stubRlContext } from '../../testing/training/rl/test-context.ts';
import { rlStep } from './step.ts';

// Per prompt (in sampling order): two completions of different lengths; 'right' earns 1, 'wrong' 0.
const completionsByPrompt = [
  [
    { tokens: [5, 5, 5], text: 'right' },
    { tokens: [6], text: 'wrong' },
  ],
  [
    { tokens: [7, 7], text: 'right' },
    { tokens: [8, 8], text: 'right' },
  ],
];

describe('rlStep with reinforce-pp', () => {
  it('whitens over tokens: rewards (1,0 | 1,1) with lengths (3,1 | 2,2) → A = 0.353553 and −2.474874', async () => {
    const sent: Datum[] = [];
    const policy = {
      contextLength: 64,
      tokenizer: { bos: 1, eos: 2, pad: 0, vocabSize: 9, encode: (text: string) => [...text].map(() => 3) },
      async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
        expect(options.n).toBe(2);
        return prompts.map((_, index) =>
          completionsByPrompt[index].map(({ tokens, text }) => ({
            tokens,
            text,
            logprobs: tokens.map(() => -1),
            samplingLogprobs: tokens.map(() => -1),
            stopReason: 'eos' as const,
          })),
        );
      },
      async forwardBackward(data: Datum[]) {
        sent.push(...data);
        return { loss: 0, logprobs: [], tokens: 0 };
      },
      async optimStep() {
        return { gradNorm: 0, step: 1 };
      },
    } as unknown as PolicyBackend;
    const reward: Reward = {
      name: 'stub',
      score: async (inputs: readonly RewardInput[]) =>
        inputs.map((input) => ({
          reward: input.completion === 'right' ? 1 : 0,
          components: {},
          reason: '',
        })),
    };
    const ctx = stubRlContext({
      policy,
      reward,
      groupSize: 2,
      algorithm: { advantage: { name: 'reinforce-pp' }, loss: { name: 'importance-sampling' } },
      lossOptions: { aggregation: 'token-mean' },
    });
    await rlStep(ctx, 1, 1e-3);

    // Tokens 1,1,1 | 0 | 1,1 | 1,1: μ = 7/8, Σ(x − μ)² = 7/64 + 49/64 = 7/8, σ² = (7/8)/7 = 1/8 (Bessel
    // over 8 tokens): A = (1/8)/sqrt(1/8) = 0.353553 for reward 1, (−7/8)/sqrt(1/8) = −2.474874 for 0.
    // (Whitening per sample would give 0.5 and −1.5.) Importance sampling on-policy, token-mean over the
    // 8 tokens: w = −A/8 on each completion token.
    const sigma = Math.sqrt(1 / 8);
    const positive = -(1 / 8 / sigma) / 8;
    const negative = -(-7 / 8 / sigma) / 8;
    const weightsOf = (tokens: number[]) => {
      const datum = sent.find((candidate) => candidate.tokens.slice(-tokens.length).join() === tokens.join());
      return datum!.weights.slice(-tokens.length);
    };
    expect(sent).toHaveLength(4);
    const expected: [number[], number][] = [
      [[5, 5, 5], positive],
      [[6], negative],
      [[7, 7], positive],
      [[8, 8], positive],
    ];
    for (const [tokens, weight] of expected) {
      for (const value of weightsOf(tokens)) expect(value).toBeCloseTo(weight, 7);
    }
  });
});
