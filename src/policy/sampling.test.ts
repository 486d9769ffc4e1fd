// Pure token-choice functions, checked on a four-token vocabulary whose probabilities are known:
// p = [0.5, 0.3, 0.15, 0.05] (logits are their logarithms plus an arbitrary shift).
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { argmax, completedStop, logSoftmax, nucleusFilter, sampleToken, topLogprobs } from './sampling.ts';

const probabilities = [0.5, 0.3, 0.15, 0.05];
const logits = Float32Array.from(probabilities, (p) => Math.log(p) + 3);

function frequencies(draw: () => number, size: number, count: number): number[] {
  const counts = new Array(size).fill(0);
  for (let i = 0; i < count; i++) counts[draw()]++;
  return counts.map((c) => c / count);
}

describe('logSoftmax', () => {
  it('recovers the probabilities and is shift invariant', () => {
    const result = logSoftmax(logits);
    for (let i = 0; i < 4; i++) expect(result[i]).toBeCloseTo(Math.log(probabilities[i]), 6);
  });

  it('divides by the temperature: at T=2 p ∝ sqrt(p)', () => {
    const result = logSoftmax(logits, 2);
    const roots = probabilities.map(Math.sqrt);
    const total = roots.reduce((a, b) => a + b, 0); // 1.86572
    for (let i = 0; i < 4; i++) expect(result[i]).toBeCloseTo(Math.log(roots[i] / total), 6);
  });

  it('stays finite for large logits', () => {
    const result = logSoftmax([1000, 999]);
    expect(result[0]).toBeCloseTo(-Math.log(1 + Math.exp(-1)), 9);
  });
});

describe('nucleusFilter', () => {
  it('keeps the smallest most-probable set reaching topP', () => {
    expect(Array.from(nucleusFilter(probabilities, 0.7).keep)).toEqual([1, 1, 0, 0]);
    expect(nucleusFilter(probabilities, 0.7).keptMass).toBeCloseTo(0.8, 12);
    expect(Array.from(nucleusFilter(probabilities, 0.85).keep)).toEqual([1, 1, 1, 0]);
    expect(Array.from(nucleusFilter(probabilities, 0.4).keep)).toEqual([1, 0, 0, 0]);
    expect(Array.from(nucleusFilter(probabilities, 1).keep)).toEqual([1, 1, 1, 1]);
  });

  it('finds the nucleus regardless of token order and breaks ties by lower id', () => {
    expect(Array.from(nucleusFilter([0.05, 0.15, 0.3, 0.5], 0.7).keep)).toEqual([0, 0, 1, 1]);
    expect(Array.from(nucleusFilter([0.25, 0.25, 0.25, 0.25], 0.3).keep)).toEqual([1, 1, 0, 0]);
  });
});

describe('sampleToken', () => {
  it('is greedy at temperature 0 with sampling log-prob 0 and the T=1 log-prob', () => {
    const row = Float32Array.from([0.1, 2, -1, 1.9]);
    const choice = sampleToken(row, 0, 1, new Rng(1));
    expect(choice.token).toBe(1);
    expect(choice.samplingLogprob).toBe(0);
    // log softmax: 2 - log(e^0.1 + e^2 + e^-1 + e^1.9) = 2 - 2.74393 = -0.74393
    expect(choice.logprob).toBeCloseTo(-0.74393, 4);
    expect(argmax([3, 5, 5, 1])).toBe(1);
  });

  it('samples from the renormalised nucleus: topP 0.7 gives q = [0.625, 0.375, 0, 0]', () => {
    const rng = new Rng(7);
    const freq = frequencies(() => sampleToken(logits, 1, 0.7, rng).token, 4, 20000);
    expect(freq[0]).toBeCloseTo(0.625, 1);
    expect(freq[1]).toBeCloseTo(0.375, 1);
    expect(freq[2]).toBe(0);
    expect(freq[3]).toBe(0);
    for (let i = 0; i < 20; i++) {
      const choice = sampleToken(logits, 1, 0.7, rng);
      expect(choice.logprob).toBeCloseTo(Math.log(probabilities[choice.token]), 6);
      expect(choice.samplingLogprob).toBeCloseTo(Math.log(choice.token === 0 ? 0.625 : 0.375), 6);
    }
  });

  it('applies temperature before the nucleus: T=2, topP 0.6 keeps tokens 0 and 1', () => {
    // q at T=2 ∝ sqrt(p) = [0.7071, 0.5477, 0.3873, 0.2236] / 1.8657 = [0.379, 0.294, 0.208, 0.120]:
    // topP 0.6 needs two tokens (0.379 < 0.6 ≤ 0.673); renormalised q(0) = 0.7071 / 1.2548 = 0.5635.
    const rng = new Rng(3);
    const freq = frequencies(() => sampleToken(logits, 2, 0.6, rng).token, 4, 20000);
    expect(freq[0]).toBeCloseTo(0.5635, 1);
    expect(freq[2] + freq[3]).toBe(0);
    const choice = sampleToken(logits, 2, 0.6, new Rng(5));
    const kept = Math.SQRT1_2 + Math.sqrt(0.3); // 0.7071 + 0.5477 = 1.2548
    const q = (choice.token === 0 ? Math.SQRT1_2 : Math.sqrt(0.3)) / kept;
    expect(choice.samplingLogprob).toBeCloseTo(Math.log(q), 3);
    expect(choice.logprob).toBeCloseTo(Math.log(probabilities[choice.token]), 6);
  });

  it('matches the softmax frequencies without truncation and is reproducible per seed', () => {
    const rng = new Rng(11);
    const freq = frequencies(() => sampleToken(logits, 1, 1, rng).token, 4, 40000);
    for (let i = 0; i < 4; i++) expect(Math.abs(freq[i] - probabilities[i])).toBeLessThan(0.01);
    const draws = (seed: number) => {
      const r = new Rng(seed);
      return Array.from({ length: 30 }, () => sampleToken(logits, 1, 1, r).token);
    };
    expect(draws(5)).toEqual(draws(5));
    expect(draws(5)).not.toEqual(draws(6));
  });

  it('rejects invalid options', () => {
    expect(() => sampleToken(logits, -1, 1, new Rng(1))).toThrow(RangeError);
    expect(() => sampleToken(logits, 1, 0, new Rng(1))).toThrow(RangeError);
  });
});

describe('topLogprobs', () => {
  it('gives the most likely tokens first, ties by the lower id, with their log-probs', () => {
    const logits = [0, 2, 1, 2, -1];
    const exact = logSoftmax(logits);
    expect(topLogprobs(logits, 3)).toEqual([
      { token: 1, logprob: exact[1] },
      { token: 3, logprob: exact[3] },
      { token: 2, logprob: exact[2] },
    ]);
    expect(topLogprobs(logits, 10).map((top) => top.token)).toEqual([1, 3, 2, 0, 4]);
    expect(topLogprobs(logits, 0)).toEqual([]);
  });
});

describe('completedStop', () => {
  it('detects a stop string completed by the last token', () => {
    expect(completedStop('abc\n', 3, ['\n'])).toBe('\n');
    expect(completedStop('x = 4</answer>', 13, ['</answer>'])).toBe('</answer>');
    expect(completedStop('x = 4</answer', 12, ['</answer>'])).toBeUndefined();
  });

  it('ignores stop strings that were already complete before the last token', () => {
    // Only possible when the caller keeps generating; the check looks at newly completed text only.
    expect(completedStop('a\nbc', 3, ['\n'])).toBeUndefined();
  });

  it('catches a stop string completed in the middle of a multi-character token', () => {
    expect(completedStop('ab\ncd', 2, ['\n'])).toBe('\n');
    expect(completedStop('abc', 1, [''])).toBeUndefined();
  });
});
