// The size limits of issue 26: per-step budgets, the embedded KV-cache memory check (with a given amount of
// memory), and quoting user input cut to 80 characters.
import { describe, expect, it } from 'vitest';
import { quoteInput, shortInput } from './quote-input.ts';
import {
  checkModelMemory,
  checkSamplingMemory,
  checkStepBudget,
  kvBytesPerCompletion,
} from './size-limits.ts';

const step = (batchSize: number, groupSize: number, maxTokens: number) => ({
  train: { batchSize },
  rollout: { groupSize, maxTokens },
});

describe('size limits', () => {
  it('per-step budgets name the product, its parts and the budget', () => {
    expect(() => checkStepBudget(step(16, 8, 96))).not.toThrow();
    expect(() => checkStepBudget(step(128, 16, 8192))).not.toThrow();
    expect(() => checkStepBudget(step(4096, 32, 1))).toThrow(
      'train.batchSize × rollout.groupSize = 4096 × 32 = 131,072 completions per step, over the limit of 65,536',
    );
    expect(() => checkStepBudget(step(256, 16, 8192))).toThrow(
      'train.batchSize × rollout.groupSize × rollout.maxTokens = 256 × 16 × 8192 = 33,554,432 tokens per step, over the budget of 16,777,216',
    );
  });

  it('the KV cache of a step is checked against half the memory', () => {
    const demo = { layers: 4, dModel: 128, contextLength: 128 };
    expect(kvBytesPerCompletion(demo)).toBe(512 * 1024);
    // 16 × 8 completions: 64 MiB, fine on 1 GiB; 4096 × 8 = 16 GiB is not, on 16 GiB.
    expect(() => checkSamplingMemory(128, demo, 'x', 2 ** 30)).not.toThrow();
    expect(() =>
      checkSamplingMemory(32_768, demo, 'train.batchSize × rollout.groupSize', 16 * 2 ** 30),
    ).toThrow(
      "train.batchSize × rollout.groupSize: sampling 32,768 completions at once needs a KV cache of 16.0 GiB (4 layers × 2 × context 128 × dModel 128 × 4 bytes each), over the budget of 8.0 GiB (half of this machine's 16.0 GiB of memory); lower it",
    );
  });

  it('a fresh model with its gradients and Adam state is checked against half the memory', () => {
    expect(() =>
      checkModelMemory({ layers: 4, dModel: 128, contextLength: 128 }, 99, 'model', 2 ** 30),
    ).not.toThrow();
    expect(() =>
      checkModelMemory({ layers: 64, dModel: 8192, contextLength: 64 }, 99, 'model', 64 * 2 ** 30),
    ).toThrow(
      /^model: a model of 64 layers × dModel 8192 has about 51\.5 billion parameters, 768\.0 GiB with gradients and optimizer state, over the budget of 32\.0 GiB/,
    );
  });

  it('user input in messages is cut to 80 characters', () => {
    expect(shortInput('abc')).toBe('abc');
    expect(shortInput('x'.repeat(20_000_000))).toBe(`${'x'.repeat(80)}… (20000000 characters)`);
    expect(quoteInput('a\uFEFFb')).toBe('"a\uFEFFb"');
    expect(quoteInput('y'.repeat(100))).toBe(`"${'y'.repeat(80)}…" (100 characters)`);
  });
});
