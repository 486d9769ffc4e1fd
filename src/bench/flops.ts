// Analytic floating-point operation counts of the embedded transformer (src/policy/model.ts) per phase of
// `curricula bench policy`, for the roofline. Convention: a multiply-add is 2 FLOPs, and only the matrix
// products are counted for the network (as Kaplan et al. 2020, §2.1, and the PaLM MFU appendix):
// LayerNorm, GELU, softmax, residual adds and the embedding gathers are O(tokens·d) against O(tokens·d²)
// for the products (under 2% at d = 128) and run as separate memory-bound kernels anyway.
//
// Forward, one sequence of L positions, model width d, vocabulary V, per layer (products [m,k]@[k,n]
// cost 2·m·k·n):
//   qkv      [L,d]@[d,3d]                    6·L·d²
//   scores   H × [L,hd]@[hd,L]  (hd = d/H)   2·L²·d    the dense L×L the code computes, masked after
//   attend   H × [L,L]@[L,hd]                2·L²·d
//   proj     [L,d]@[d,d]                     2·L·d²
//   mlp      [L,d]@[d,4d] and [L,4d]@[4d,d]  16·L·d²
//   layer total                              24·L·d² + 4·L²·d
// plus the LM head [L,d]@[d,V]: 2·L·d·V.
//
// Backward: every product Y = A·B needs dA = dY·Bᵀ and dB = Aᵀ·dY, each as costly as Y, so backward is
// 2 × forward. (The products' two operands are both differentiated even in attention, where both are
// activations; the first layer's input gradient still feeds the embeddings' gradients.)
//
// Adam (src/policy/optimizer.ts, no weight decay or clipping as in the benchmark) per parameter:
//   m ← β1·m + (1−β1)·g                3  (2 mul, 1 add)
//   v ← β2·v + (1−β2)·g²               4  (3 mul, 1 add)
//   m̂ = m/(1−β1ᵗ), v̂ = v/(1−β2ᵗ)        2
//   p ← p − lr·m̂/(√v̂ + ε)              5  (sqrt, add, div, mul, sub; sqrt counted as 1)
//   total                               14 per parameter
//
// KV-cached sampling (src/policy/sampler.ts): each prompt of P tokens is prefilled once (a forward at
// L = P with the LM head on the last position only); then each of the R rows produces `newTokens`
// tokens: the first from the prefill's logits, each later one after a decode step that feeds the
// previous token. Decode step s = 1 … newTokens−1 runs the per-token products (24·d² per layer + 2·d·V)
// and attends over the P + s cached positions (2·(P+s)·d for the scores, as much for the weighted sum,
// per layer). Counted over the positions filled, i.e. the work a cache needs; the embedded sampler's
// buffer is padded in chunks, and the padding it multiplies by zero is not counted.
import type { ModelConfig } from '../policy/model-config.ts';
import { parameterCount } from '../policy/model-config.ts';

/** Forward FLOPs of one sequence of `length` positions, LM head on `headPositions` of them. */
export function forwardFlopsPerSequence(config: ModelConfig, length: number, headPositions = length): number {
  const { dModel: d, layers, vocabSize: v } = config;
  return layers * (24 * length * d * d + 4 * length * length * d) + 2 * headPositions * d * v;
}

/** Adam FLOPs per parameter (derivation above). */
export const adamFlopsPerParameter = 14;

export interface TrainStepFlops {
  forward: number;
  backward: number;
  optimizer: number;
}

/**
 * One training step on `batch` sequences of `sequenceTokens` tokens: the model sees
 * sequenceTokens − 1 positions each (inputs tokens[:-1], targets tokens[1:]).
 */
export function trainStepFlops(config: ModelConfig, batch: number, sequenceTokens: number): TrainStepFlops {
  const forward = batch * forwardFlopsPerSequence(config, sequenceTokens - 1);
  return { forward, backward: 2 * forward, optimizer: adamFlopsPerParameter * parameterCount(config) };
}

/** KV-cached sampling of `rows` rows from `prompts` prompts of `promptLength` tokens, `newTokens` each. */
export function samplingFlops(
  config: ModelConfig,
  prompts: number,
  promptLength: number,
  rows: number,
  newTokens: number,
): number {
  const { dModel: d, layers, vocabSize: v } = config;
  const prefill = prompts * forwardFlopsPerSequence(config, promptLength, 1);
  const steps = Math.max(0, newTokens - 1);
  // Σ_{s=1}^{steps} (P + s) = steps·P + steps·(steps+1)/2 attended positions per row and layer.
  const attended = steps * promptLength + (steps * (steps + 1)) / 2;
  const perRow = steps * (layers * 24 * d * d + 2 * d * v) + layers * 4 * d * attended;
  return prefill + rows * perRow;
}
