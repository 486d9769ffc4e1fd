// snapshotForSampling shares the weight buffers instead of copying them (TransformerModel.shareWeights):
// these tests pin down that the snapshot still behaves like a save → load copy — later optimiser steps and
// the disposal of the trained backend leave it alone — and that sharing leaks no tensors.
import { describe, expect, it } from 'vitest';
import type { Datum } from '../core/policy.ts';
import { stubTokenizer } from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { tf } from './runtime.ts';

const config = { vocabSize: 12, dModel: 16, layers: 2, heads: 2, contextLength: 16 };
const sequences = [
  [1, 3, 4, 5, 6, 7, 8, 9, 2],
  [1, 10, 11, 3, 2],
];
const batch: Datum[] = sequences.map((tokens) => ({ tokens, weights: tokens.slice(1).map(() => -1) }));

function valuesOf(backend: EmbeddedBackend): Float32Array[] {
  return [...backend.model.parameterValues().values()];
}

describe('EmbeddedBackend.snapshotForSampling', () => {
  it('keeps the weights of its moment through later optimiser steps and the trained backend’s disposal', async () => {
    const trained = await EmbeddedBackend.create(config, stubTokenizer(12), 7);
    const before = valuesOf(trained);
    const logprobsBefore = await trained.forward(sequences);
    const snapshot = trained.snapshotForSampling();

    for (let step = 0; step < 2; step++) {
      await trained.forwardBackward(batch, 'cross_entropy');
      await trained.optimStep({ learningRate: 0.05 });
    }
    const after = valuesOf(trained);
    expect(after.some((values, i) => values.some((v, j) => v !== before[i][j]))).toBe(true);
    expect(await trained.forward(sequences)).not.toEqual(logprobsBefore);

    // The snapshot: bit for bit the weights and log-probs of the moment it was taken.
    expect(valuesOf(snapshot)).toEqual(before);
    expect(await snapshot.forward(sequences)).toEqual(logprobsBefore);
    trained.dispose();
    expect(valuesOf(snapshot)).toEqual(before);
    expect(await snapshot.forward(sequences)).toEqual(logprobsBefore);
    snapshot.dispose();
  });

  it('shares buffers without leaking: snapshots taken and disposed leave the tensor count where it was', async () => {
    const trained = await EmbeddedBackend.create(config, stubTokenizer(12), 8);
    const baseline = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) {
      const snapshot = trained.snapshotForSampling();
      await trained.forwardBackward(batch, 'cross_entropy');
      await trained.optimStep({ learningRate: 0.01 });
      snapshot.dispose();
    }
    expect(tf.memory().numTensors).toBe(baseline);
    trained.dispose();
  });
});
