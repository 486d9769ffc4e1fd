// The native engine's side of EmbeddedBackend (policy.engine 'native'): micro-batches through
// native/model.c with their gradients summed in one canonical-order buffer, handed to the optimizer as
// tensors (or to tests as arrays) together with whatever the tfjs path accumulated. The weights are
// packed once per optimizer step (and shared with the native sampler, native-decoder.ts): every weight update (EmbeddedBackend.optimStep, or the parallel
// backend's replicas applying the all-reduced sum) goes through the AdamW object and advances its step.
import type { TransformerModel } from './model.ts';
import { nativeForwardBackward, packParameters, unpackParameters } from './native-model.ts';
import type { AdamW } from './optimizer.ts';
import { tf } from './runtime.ts';
import type { PaddedBatch } from './teacher-forcing.ts';

export class NativeGradients {
  /** Gradients summed since the last take or clear, canonical order (null when empty). */
  private flat: Float32Array | null = null;
  /** The packed weights and the optimizer step they were read at. */
  private packed: { step: number; params: Float32Array } | null = null;

  constructor(
    private readonly model: TransformerModel,
    private readonly optimizer: AdamW,
    /** native/model.c threads of each micro-batch. */
    readonly threads = 1,
  ) {}

  /** The weights packed in canonical order, read again after every optimizer step. */
  weights(): Float32Array {
    const step = this.optimizer.step;
    if (this.packed?.step !== step) this.packed = { step, params: packParameters(this.model) };
    return this.packed.params;
  }

  /** One padded micro-batch: loss and log-probs (and entropies); its gradient is added to the sum. */
  microBatch(batch: PaddedBatch, sign: 1 | -1, entropyWeights?: Float32Array) {
    const params = this.weights();
    this.flat ??= new Float32Array(params.length);
    return nativeForwardBackward(this.model, batch, sign, {
      params,
      gradients: this.flat,
      threads: this.threads,
      ...(entropyWeights && { entropyWeights }),
    });
  }

  /** Adds the sum into `gradients` as tensors (by parameter name) and empties it. */
  takeInto(gradients: Map<string, tf.Tensor>): void {
    if (!this.flat) return;
    for (const [name, values] of unpackParameters(this.model.config, this.flat)) {
      const native = tf.tensor(values, this.model.param(name).shape, 'float32');
      const old = gradients.get(name);
      gradients.set(name, old ? tf.add(old, native) : native);
      if (old) {
        old.dispose();
        native.dispose();
      }
    }
    this.flat = null;
  }

  /** Adds copies of the sum into `values` (by parameter name); the sum is kept. */
  addValuesInto(values: Map<string, Float32Array>): void {
    if (!this.flat) return;
    for (const [name, native] of unpackParameters(this.model.config, this.flat)) {
      const tfjs = values.get(name);
      values.set(name, tfjs ? tfjs.map((value, i) => value + native[i]) : native.slice());
    }
  }

  clear(): void {
    this.flat = null;
  }
}
