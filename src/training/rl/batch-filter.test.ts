// The VCRL batch filter through the code path `curricula train` runs: the config block parsed by
// rlConfigSchema, rlStep sampling, filtering and sending the kept groups to the backend. The policy is a
// stub whose completions are fixed per prompt position, so the reward pattern of each group is known:
// in the first sampling round prompt 0 → 1 of 4 right (p = 0.75), prompt 1 → 2 of 4 right (p = 1); later
// rounds give every prompt the second pattern. Both patterns are informative for DAPO.
import { describe, expect, it } from 'vitest';
import type { Datum, PolicyBackend, SampledSequence } from '../../core/policy.ts';
import type { Reward, RewardInput } from '../../core/reward.ts';
import { stubRlContext } from '../../testing/training/rl/test-context.ts';
import { batchFilter } from './batch-filter.ts';
import { rlConfigSchema } from './config.ts';
import { rlStep } from './step.ts';

const patterns = [
  ['right', 'wrong', 'wrong', 'wrong'],
  ['right', 'right', 'wrong', 'wrong'],
];

async function stepWith(algorithm: object): Promise<{ sent: Datum[]; metrics: Record<string, number> }> {
  const sent: Datum[] = [];
  let calls = 0;
  const policy = {
    contextLength: 64,
    tokenizer: { bos: 1, eos: 2, pad: 0, vocabSize: 9, encode: (text: string) => [...text].map(() => 3) },
    async sample(prompts: number[][]): Promise<SampledSequence[][]> {
      const round = calls++;
      return prompts.map((_, index) => {
        const pattern = round === 0 ? index % 2 : 1;
        return patterns[pattern].map((text, sample) => ({
          tokens: [4 + pattern, 4 + sample],
          text,
          logprobs: [-1, -1],
          samplingLogprobs: [-1, -1],
          stopReason: 'eos' as const,
        }));
      });
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
      inputs.map((input) => ({ reward: input.completion === 'right' ? 1 : 0, components: {}, reason: '' })),
  };
  const ctx = stubRlContext({ policy, reward, groupSize: 4, algorithm });
  const report = await rlStep(ctx, 1, 1e-3);
  return { sent, metrics: report.metrics };
}

/** The first completion token of each sequence sent to the backend: 4 for pattern 0, 5 for pattern 1. */
const promptsOf = (sent: Datum[]) => [...new Set(sent.map((datum) => datum.tokens[datum.tokens.length - 2]))];

describe('algorithm.vcrlFilter in rlStep', () => {
  it('trains only on groups with p ≥ κ: κ = 0.8 drops the 1-of-4 group (p = 0.75)', async () => {
    const { sent, metrics } = await stepWith({ vcrlFilter: { enabled: true, threshold: 0.8, maxRounds: 0 } });
    expect(promptsOf(sent)).toEqual([5]);
    expect(sent).toHaveLength(4);
    expect(metrics['sampling/trained_groups']).toBe(1);
    expect(metrics['sampling/filtered_frac']).toBe(0.5);
  });

  it('refills the batch with extra rounds: 1 extra round samples the 1 missing group → 2 kept of 3', async () => {
    const { sent, metrics } = await stepWith({ vcrlFilter: { enabled: true, threshold: 0.8, maxRounds: 1 } });
    expect(promptsOf(sent)).toEqual([5]);
    expect(sent).toHaveLength(8);
    expect(metrics['sampling/rounds']).toBe(2);
    expect(metrics['sampling/groups']).toBe(3);
    expect(metrics['sampling/tokens']).toBe(3 * 4 * 2); // 3 groups of 4 completions of 2 tokens each
    expect(metrics['sampling/trained_groups']).toBe(2);
  });

  it('off (the default) or DAPO alone: both groups are trained', async () => {
    for (const algorithm of [{}, { dynamicSampling: { enabled: true, maxRounds: 0 } }]) {
      const { sent } = await stepWith(algorithm);
      expect(promptsOf(sent).sort()).toEqual([4, 5]);
      expect(sent).toHaveLength(8);
    }
  });

  it('with DAPO too, a group must pass both and the larger round budget applies', () => {
    const algorithm = rlConfigSchema.parse({
      tasks: [{ task: 'addition', difficulties: [1] }],
      algorithm: {
        dynamicSampling: { enabled: true, maxRounds: 5 },
        vcrlFilter: { enabled: true, threshold: 0.5 },
      },
      train: { steps: 1, learningRate: 1e-3 },
    }).algorithm;
    const filter = batchFilter(algorithm)!;
    expect(filter.maxRounds).toBe(5);
    expect(filter.keep({ rewards: [1, 0, 0, 0] })).toBe(true);
    expect(filter.keep({ rewards: [1, 0, 0, 0, 0, 0, 0, 0] })).toBe(false); // p = 0.4375 < 0.5
    const defaults = rlConfigSchema.parse({
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 1, learningRate: 1e-3 },
    });
    expect(batchFilter(defaults.algorithm)).toBeNull();
  });
});
