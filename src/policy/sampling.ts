// Pure token-choice functions for the sampler: log-softmax with temperature, nucleus (top-p) filtering,
// one token draw, and stop-string detection. They work on one row of logits (a Float32Array of length V)
// in plain JavaScript, so that they can be checked by hand on a small vocabulary; the tensor work (the
// KV-cached forward) lives in sampler.ts.
//
// Conventions (src/core/policy.ts):
// - `logprob` is log p(token) under the policy at temperature 1, what the learner sees.
// - `samplingLogprob` is log q(token) under the distribution actually sampled from (temperature, then
//   top-p truncation and renormalisation). Greedy decoding (temperature 0) is a point mass: log q = 0.
// - Nucleus sampling (Holtzman et al. 2020, "The Curious Case of Neural Text Degeneration"): keep the
//   smallest set of most-probable tokens whose total probability reaches topP; ties in probability are
//   broken by the lower token id, so that the kept set is deterministic.

import type { Rng } from '../core/rng.ts';

export interface TokenChoice {
  token: number;
  /** log p(token) at temperature 1. */
  logprob: number;
  /** log q(token) under the sampling distribution (temperature + top-p); 0 for greedy. */
  samplingLogprob: number;
}

/** log-softmax of logits / temperature, in float64. temperature must be > 0. Shape [V] → [V]. */
export function logSoftmax(logits: ArrayLike<number>, temperature = 1): Float64Array {
  const size = logits.length;
  const result = new Float64Array(size);
  let maximum = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < size; i++) {
    const scaled = logits[i] / temperature;
    result[i] = scaled;
    if (scaled > maximum) maximum = scaled;
  }
  let total = 0;
  for (let i = 0; i < size; i++) total += Math.exp(result[i] - maximum);
  const logTotal = maximum + Math.log(total);
  for (let i = 0; i < size; i++) result[i] -= logTotal;
  return result;
}

/**
 * The `count` most likely tokens of one row of logits at temperature 1, most likely first (ties: the lower
 * id first), with their log-probs.
 */
export function topLogprobs(logits: ArrayLike<number>, count: number): { token: number; logprob: number }[] {
  const logprobs = logSoftmax(logits, 1);
  const top: number[] = [];
  for (let i = 0; i < logprobs.length; i++) {
    if (top.length === count && logprobs[i] <= logprobs[top[count - 1]]) continue;
    let at = top.length < count ? top.length : count - 1;
    top[at] = i;
    while (at > 0 && logprobs[top[at]] > logprobs[top[at - 1]]) {
      [top[at], top[at - 1]] = [top[at - 1], top[at]];
      at--;
    }
  }
  return top.map((token) => ({ token, logprob: logprobs[token] }));
}

/** Index of the largest value (the lowest index among ties). */
export function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/**
 * Nucleus filter over probabilities: marks the smallest set of most-probable tokens whose mass reaches
 * `topP` (at least one token). Returns the mask and the kept mass (before renormalisation).
 * topP ≥ 1 keeps everything.
 */
export function nucleusFilter(
  probabilities: ArrayLike<number>,
  topP: number,
): { keep: Uint8Array; keptMass: number } {
  const size = probabilities.length;
  const keep = new Uint8Array(size);
  if (topP >= 1) {
    // The probabilities are a softmax: their mass is 1 by construction (summing would round).
    keep.fill(1);
    return { keep, keptMass: 1 };
  }
  const order = Array.from({ length: size }, (_, i) => i);
  order.sort((a, b) => probabilities[b] - probabilities[a] || a - b);
  let keptMass = 0;
  for (const index of order) {
    keep[index] = 1;
    keptMass += probabilities[index];
    if (keptMass >= topP) break;
  }
  return { keep, keptMass };
}

/**
 * Chooses the next token from one row of logits [V]. temperature 0 is greedy (argmax); otherwise one
 * uniform draw from `rng` picks a token from softmax(logits / temperature) restricted to the nucleus.
 * Exactly one rng draw is consumed per sampled (non-greedy) token.
 */
export function sampleToken(
  logits: ArrayLike<number>,
  temperature: number,
  topP: number,
  rng: Rng,
): TokenChoice {
  if (!(temperature >= 0)) throw new RangeError(`temperature must be ≥ 0, got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw new RangeError(`topP must be in (0, 1], got ${topP}`);
  const policyLogprobs = logSoftmax(logits, 1);
  if (temperature === 0) {
    const token = argmax(logits);
    return { token, logprob: policyLogprobs[token], samplingLogprob: 0 };
  }
  const samplingLogprobs = temperature === 1 ? policyLogprobs : logSoftmax(logits, temperature);
  const probabilities = samplingLogprobs.map(Math.exp);
  const { keep, keptMass } = nucleusFilter(probabilities, topP);
  // Draw in token-id order over the kept set; the last kept token absorbs rounding.
  let remaining = rng.next() * keptMass;
  let token = -1;
  for (let i = 0; i < probabilities.length; i++) {
    if (!keep[i]) continue;
    token = i;
    remaining -= probabilities[i];
    if (remaining < 0) break;
  }
  return {
    token,
    logprob: policyLogprobs[token],
    samplingLogprob: samplingLogprobs[token] - Math.log(keptMass),
  };
}

/**
 * The stop string completed by the latest token, if any: one that occurs in `text` and ends after
 * `previousLength` (the text length before that token). With one character per token this is exactly
 * "the completion ends with a stop string"; with multi-character tokens it also catches a stop string
 * that the last token completed in its middle (the text then runs a few characters past it).
 */
export function completedStop(
  text: string,
  previousLength: number,
  stops: readonly string[],
): string | undefined {
  for (const stop of stops) {
    if (stop.length === 0) continue;
    const searchFrom = Math.max(0, previousLength - stop.length + 1);
    if (text.indexOf(stop, searchFrom) !== -1) return stop;
  }
  return undefined;
}
