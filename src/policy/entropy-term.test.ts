// The entropy term of forwardBackward (Datum.entropyWeights: the loss adds Σ e_t·H_t, H_t the entropy of
// position t's next-token distribution) on both engines, against an independent float64 computation:
// softmax of src/testing/policy/test-helpers.ts's referenceLogits. Checked: the returned entropies, the
// loss value (w·logp term signed by the loss kind, entropy term unsigned), and the gradient against central
// differences of the float64 loss (parameters perturbed in float32, the stored step used, as
// update-policy.test.ts). Bad entropy weights are refused naming the datum.
import { describe, expect, it } from 'vitest';
import { requirement } from '../../test/requirements.ts';
import type { Datum } from '../core/policy.ts';
import { referenceLogits, stubTokenizer } from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import type { ModelConfig } from './model-config.ts';
import { nativeModelStatus } from './native-model.ts';

const config: ModelConfig = { vocabSize: 8, dModel: 16, layers: 1, heads: 2, contextLength: 16 };
const status = nativeModelStatus();
const native = requirement(status.available, status.reason);

const data: Datum[] = [
  { tokens: [1, 3, 4, 5, 6], weights: [0, 0.5, -0.3, 0.2], entropyWeights: [0, -0.7, -0.7, 0.4] },
  { tokens: [1, 5, 3], weights: [0.1, -0.2], entropyWeights: [-0.5, 0.3] },
  // a datum without entropy weights, next to ones with them
  { tokens: [2, 2, 7, 1], weights: [0.3, 0, -0.4] },
];

/** Per datum per position: log p(target) and H, in float64. */
function reference(params: Map<string, Float32Array>): { logprobs: number[][]; entropies: number[][] } {
  const logprobs: number[][] = [];
  const entropies: number[][] = [];
  for (const datum of data) {
    const logits = referenceLogits(config, params, datum.tokens.slice(0, -1));
    const lp: number[] = [];
    const h: number[] = [];
    logits.forEach((row, t) => {
      const max = Math.max(...row);
      const logSum = max + Math.log(row.reduce((sum, z) => sum + Math.exp(z - max), 0));
      lp.push(row[datum.tokens[t + 1]] - logSum);
      h.push(-row.reduce((sum, z) => sum + Math.exp(z - logSum) * (z - logSum), 0));
    });
    logprobs.push(lp);
    entropies.push(h);
  }
  return { logprobs, entropies };
}

function referenceLoss(params: Map<string, Float32Array>, sign: 1 | -1): number {
  const { logprobs, entropies } = reference(params);
  let loss = 0;
  data.forEach((datum, i) => {
    datum.weights.forEach((w, t) => {
      loss += sign * w * logprobs[i][t] + (datum.entropyWeights?.[t] ?? 0) * entropies[i][t];
    });
  });
  return loss;
}

for (const engine of ['tfjs', 'native'] as const) {
  const skip = engine === 'native' && native.skip;
  describe(`forwardBackward's entropy term, engine ${engine}${engine === 'native' ? native.label : ''}`, () => {
    it.skipIf(skip)('returns each position’s entropy and adds Σ e·H, unsigned, to the loss', async () => {
      const backend = await EmbeddedBackend.create(config, stubTokenizer(8), 4, { engine });
      const params = backend.model.parameterValues();
      const expected = reference(params);
      for (const [loss, sign] of [
        ['linear', 1],
        ['cross_entropy', -1],
      ] as const) {
        const result = await backend.forwardBackward(data, loss);
        for (const [i, row] of result.entropies!.entries()) {
          for (const [t, value] of row.entries()) expect(value).toBeCloseTo(expected.entropies[i][t], 5);
        }
        expect(result.loss).toBeCloseTo(referenceLoss(params, sign), 4);
        backend.zeroGradients();
      }
      // No entropy weights anywhere: no entropies, and the loss is the log-prob term alone.
      const plain = await backend.forwardBackward(
        data.map(({ tokens, weights }) => ({ tokens, weights })),
        'linear',
      );
      expect(plain.entropies).toBeUndefined();
      backend.dispose();
    });

    it.skipIf(skip)(
      'its gradient is the derivative of Σ w·logp + Σ e·H (float64 central differences)',
      async () => {
        const backend = await EmbeddedBackend.create(config, stubTokenizer(8), 4, { engine });
        // The entropy term alone (w = 0), so a wrong entropy gradient cannot hide behind the log-prob one.
        const entropyOnly = data.map((datum) => ({ ...datum, weights: datum.weights.map(() => 0) }));
        await backend.forwardBackward(entropyOnly, 'linear');
        const gradient = backend.gradientValues();
        const params = backend.model.parameterValues();
        const saved = data.map((datum) => datum.weights);
        data.forEach((datum) => {
          datum.weights = datum.weights.map(() => 0);
        });
        const h = 1e-3;
        let compared = 0;
        for (const [name, values] of gradient) {
          let best = 0;
          values.forEach((value, index) => {
            if (Math.abs(value) > Math.abs(values[best])) best = index;
          });
          const stored = params.get(name)!;
          const original = stored[best];
          stored[best] = Math.fround(original + h);
          const up = stored[best] - original;
          const plus = referenceLoss(params, 1);
          stored[best] = Math.fround(original - h);
          const down = stored[best] - original;
          const minus = referenceLoss(params, 1);
          stored[best] = original;
          const numeric = (plus - minus) / (up - down);
          expect(Math.abs(numeric - values[best]), `${name}[${best}]`).toBeLessThan(
            2e-3 * Math.abs(numeric) + 1e-5,
          );
          if (Math.abs(numeric) > 1e-3) compared++;
        }
        data.forEach((datum, i) => {
          datum.weights = saved[i];
        });
        expect(compared).toBeGreaterThanOrEqual(8);
        backend.dispose();
      },
    );
  });
}

describe('bad entropy weights', () => {
  it('are refused naming the datum', async () => {
    const backend = await EmbeddedBackend.create(config, stubTokenizer(8), 4);
    await expect(
      backend.forwardBackward([{ tokens: [1, 2, 3], weights: [0, 1], entropyWeights: [1] }], 'linear'),
    ).rejects.toThrow(/datum 0: 1 entropy weights for 3 tokens/);
    await expect(
      backend.forwardBackward(
        [{ tokens: [1, 2, 3], weights: [0, 1], entropyWeights: [0, Number.NaN] }],
        'linear',
      ),
    ).rejects.toThrow(/entropy weight NaN is not finite/);
    backend.dispose();
  });
});
