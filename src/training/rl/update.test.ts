// The loss-to-backend contract on a tiny real model: the per-token weights the client computes from the
// PPO loss, pushed through the backend's forwardBackward('linear'), must give the gradient of the scalar
// PPO loss with respect to the model's parameters (checked by central finite differences on the
// parameters). This builds the datums itself; the production update path (updatePolicy in update.ts) is
// checked against an independently computed loss in update-policy.test.ts.
import { describe, expect, it } from 'vitest';
import { policyLosses } from '../../algorithms/losses/index.ts';
import type { LossSequence } from '../../algorithms/losses/policy-loss.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { tf } from '../../policy/runtime.ts';
import { stubTokenizer } from '../../testing/policy/test-helpers.ts';

const config = { vocabSize: 8, dModel: 16, layers: 1, heads: 2, contextLength: 16 };
const contexts = [
  [1, 3, 4],
  [1, 5, 3, 6],
];
const completions = [
  [5, 6, 7, 2],
  [4, 4, 2],
];
// Sampling-time log-prob offsets (old = current + offset, so ratio = exp(-offset)): ratios inside the
// clip range, and far outside it on the side where PPO clips (ratio 1.82 with A > 0, 0.55 with A < 0).
const oldOffsets = [
  [0.05, -0.05, -0.6, 0],
  [0.6, 0.02, 0],
];
const advantages = [1, -0.7];

describe('PPO update through the embedded backend', () => {
  it('gives the finite-difference gradient of the PPO loss with respect to the parameters', async () => {
    const backend = await EmbeddedBackend.create(config, stubTokenizer(8), 3);
    const ppo = policyLosses.get('ppo-clip');
    const options = ppo.resolveOptions({ aggregation: 'seq-mean-token-mean' });
    const sequences = contexts.map((context, i) => [...context, ...completions[i]]);
    const completionLogprobs = async () =>
      (await backend.forward(sequences)).map((logprobs, i) => logprobs.slice(contexts[i].length - 1));
    const base = await completionLogprobs();
    const lossSequences = (current: number[][]): LossSequence[] =>
      current.map((logprobs, i) => ({
        logprobs,
        oldLogprobs: base[i].map((value, t) => value + oldOffsets[i][t]),
        advantages: advantages[i],
        mask: logprobs.map(() => 1),
      }));
    const lossAt = async () => ppo.compute(lossSequences(await completionLogprobs()), options).loss;

    const result = ppo.compute(lossSequences(base), options);
    expect(result.metrics['losses/clipfrac']).toBeGreaterThan(0);
    await backend.forwardBackward(
      sequences.map((tokens, i) => ({
        tokens,
        weights: [...new Array(contexts[i].length - 1).fill(0), ...result.weights[i]],
      })),
      'linear',
    );
    const gradients = backend.gradientValues();

    // The entries with the largest gradients, in a few different tensors.
    const candidates: { name: string; index: number; gradient: number }[] = [];
    for (const [name, values] of gradients) {
      let best = 0;
      values.forEach((value, index) => {
        if (Math.abs(value) > Math.abs(values[best])) best = index;
      });
      candidates.push({ name, index: best, gradient: values[best] });
    }
    candidates.sort((a, b) => Math.abs(b.gradient) - Math.abs(a.gradient));
    const epsilon = 2e-3;
    for (const { name, index, gradient } of candidates.slice(0, 6)) {
      const variable = backend.model.params.get(name)!;
      const original = variable.dataSync().slice();
      const nudge = async (delta: number) => {
        const values = original.slice();
        values[index] += delta;
        variable.assign(tf.tensor(values, variable.shape));
        return lossAt();
      };
      const numeric = ((await nudge(epsilon)) - (await nudge(-epsilon))) / (2 * epsilon);
      variable.assign(tf.tensor(original, variable.shape));
      expect(Math.abs(numeric - gradient)).toBeLessThan(0.03 * Math.abs(gradient) + 1e-4);
    }
    backend.dispose();
  });
});
