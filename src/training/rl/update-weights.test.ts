// The update path's weights on a tiny real model (updatePolicy in update.ts, the fixtures of
// src/testing/training/rl/update-fixtures.ts): what forwardBackward is sent with the sampled entropy
// estimator, and which samples count in the token-mean normaliser under a rejecting estimator.
import { describe, expect, it } from 'vitest';
import { advantageEstimators } from '../../algorithms/advantages/index.ts';
import type { Datum, PolicyBackend } from '../../core/policy.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { stubTokenizer } from '../../testing/policy/test-helpers.ts';
import {
  advantages,
  completions,
  contexts,
  everything,
  modelConfig,
  recordingPolicy,
  rlContext,
  sampledGroup,
  sampledGroups,
} from '../../testing/training/rl/update-fixtures.ts';
import { updatePolicy } from './update.ts';

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
