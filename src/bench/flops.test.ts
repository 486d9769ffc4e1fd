// FLOP formulas checked against products enumerated by hand for a tiny config (vocabulary 4, width 2,
// one layer, one head): every [m,k]@[k,n] product the model runs, 2·m·k·n each.
import { describe, expect, it } from 'vitest';
import { parameterCount } from '../policy/model-config.ts';
import { forwardFlopsPerSequence, samplingFlops, trainStepFlops } from './flops.ts';

const tiny = { vocabSize: 4, dModel: 2, layers: 1, heads: 1, contextLength: 4 };
const product = (m: number, k: number, n: number) => 2 * m * k * n;

/** The products of one layer and the head on L positions (head on `headRows` of them), by hand. */
function handForward(length: number, headRows: number): number {
  const L = length;
  return (
    product(L, 2, 6) + // qkv [L,2]@[2,6]
    product(L, 2, L) + // scores q·kᵀ, one head of size 2
    product(L, L, 2) + // softmax(scores)·v
    product(L, 2, 2) + // attention projection
    product(L, 2, 8) + // MLP up
    product(L, 8, 2) + // MLP down
    product(headRows, 2, 4) // LM head
  );
}

describe('analytic FLOPs', () => {
  it('counts the forward of one sequence', () => {
    expect(handForward(3, 3)).toBe(408); // 72 + 36 + 36 + 24 + 96 + 96 + 48
    expect(forwardFlopsPerSequence(tiny, 3)).toBe(408);
    expect(forwardFlopsPerSequence(tiny, 2, 1)).toBe(handForward(2, 1));
  });

  it('counts a training step: T − 1 positions per sequence, backward twice forward, Adam 14 per parameter', () => {
    expect(parameterCount(tiny)).toBe(102);
    expect(trainStepFlops(tiny, 2, 4)).toEqual({ forward: 816, backward: 1632, optimizer: 14 * 102 });
  });

  it('counts KV-cached sampling: prefill per prompt, then one decode step per token after the first', () => {
    // 2 prompts of 2 tokens, 4 rows, 3 new tokens each: decode steps attend over 3 and then 4 positions.
    const prefill = 2 * handForward(2, 1);
    const decode = (attended: number) =>
      product(1, 2, 6) +
      product(1, 2, attended) +
      product(1, attended, 2) +
      product(1, 2, 2) +
      product(1, 2, 8) +
      product(1, 8, 2) +
      product(1, 2, 4);
    const hand = prefill + 4 * (decode(3) + decode(4));
    expect(hand).toBe(1600);
    expect(samplingFlops(tiny, 2, 2, 4, 3)).toBe(hand);
    expect(samplingFlops(tiny, 2, 2, 4, 1)).toBe(prefill); // the only token comes from the prefill
  });

  it('matches the issue’s ~5.6 GFLOP for a base train step of 1,024 tokens', () => {
    const base = { vocabSize: 64, dModel: 128, layers: 4, heads: 4, contextLength: 128 };
    const flops = trainStepFlops(base, 8, 128);
    const total = flops.forward + flops.backward + flops.optimizer;
    expect(total / 1e9).toBeGreaterThan(5.2);
    expect(total / 1e9).toBeLessThan(5.8);
  });
});
