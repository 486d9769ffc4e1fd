// Clip-Cov: PPO's clipped surrogate, with the gradient of a few high-covariance tokens stopped. Among the
// loss tokens that PPO's clip did not already clip, those with lb < cov_t < ub (./token-covariance.ts) are
// candidates; max(1, ⌊ratio · loss tokens⌋) of them, drawn at random, get loss and gradient 0 (corr = 0);
// every other token has the PPO term max(−A·r, −A·clip(r, 1−ε_low, 1+ε_high)). Paper: "The Entropy
// Mechanism of Reinforcement Learning for Reasoning Language Models" (Cui et al. 2025), arXiv 2505.22617,
// §5 and Algorithm 1; authors' code PRIME-RL/Entropy-Mechanism-of-RL. Reference: verl
// `compute_policy_loss_clip_cov` (verl/trainer/ppo/core_algos.py), read for the formula and the defaults;
// none of it is copied.
//
// Defaults from verl's actor config: ratio 2e-4, lb 1, ub 5, ε_low = ε_high = 0.2 (verl's clip_ratio),
// token-mean aggregation; no dual clip and no log-ratio clamp (verl's clip_cov has neither).
// Deviations: verl draws the tokens with torch.randperm (the process's global generator); here the draw
// is seeded by a hash of the batch's π_old log-probs, advantages and mask (and the `seed` option), so the
// loss stays a pure function and a resumed run draws the same tokens. losses/clipfrac is PPO's clip
// fraction, as for ppo-clip; verl's pg_clipfrac for clip_cov is the fraction of covariance-clipped tokens,
// here losses/cov_clipfrac. Not offered for expert tokens (the covariance would mix them in).
import { z } from 'zod';
import { Rng } from '../../core/rng.ts';
import {
  aggregationOptionsShape,
  type BatchTerm,
  defineLoss,
  type LossSequence,
  type TokenInput,
  type TokenTerm,
} from './policy-loss.ts';
import { placeKeys, selectionCount, tokenAdvantage, tokenCovariances } from './token-covariance.ts';

export const clipCovOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** PPO's lower clip offset (verl clip_ratio: 0.2). */
  epsilonLow: z.number().nonnegative().default(0.2),
  /** PPO's upper clip offset (verl clip_ratio: 0.2). */
  epsilonHigh: z.number().nonnegative().default(0.2),
  /** Fraction of loss tokens whose gradient is stopped (verl clip_cov_ratio: 2e-4; at least one token). */
  ratio: z.number().positive().max(1).default(2e-4),
  /** Candidates have a covariance above this (verl clip_cov_lb: 1). */
  lowerBound: z.number().default(1),
  /** Candidates have a covariance below this (verl clip_cov_ub: 5). */
  upperBound: z.number().default(5),
  /** Mixed into the hash that seeds the draw of the candidates. */
  seed: z.number().int().default(0),
});
export type ClipCovOptions = z.output<typeof clipCovOptionsSchema>;

/** PPO's clipped term (no dual clip, no clamp), as Clip-Cov uses it. */
export function ppoTerm(token: TokenInput, epsilonLow: number, epsilonHigh: number): TokenTerm {
  const a = token.advantage;
  const r = Math.exp(token.logprob - token.oldLogprob);
  const unclipped = -a * r;
  const clipped = -a * Math.min(1 + epsilonHigh, Math.max(1 - epsilonLow, r));
  if (clipped > unclipped) return { value: clipped, derivative: 0, clipped: a > 0 ? 'high' : 'low' };
  return { value: unclipped, derivative: -a * r };
}

/** A 32-bit FNV-1a hash of the batch's π_old log-probs, advantages and mask: the draw's seed. */
export function batchSeed(sequences: readonly LossSequence[], seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  const mix = (value: number) => {
    view.setFloat64(0, value);
    for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  };
  sequences.forEach((sequence) => {
    sequence.logprobs.forEach((logprob, t) => {
      mix(sequence.mask[t]);
      mix(sequence.oldLogprobs?.[t] ?? logprob);
      mix(tokenAdvantage(sequence, t));
    });
  });
  return hash >>> 0;
}

export function clipCovBatchTerm(
  sequences: readonly LossSequence[],
  options: ClipCovOptions,
): BatchTerm<ClipCovOptions> {
  const places = tokenCovariances(sequences);
  const candidates = places.filter((place) => {
    if (!(place.covariance > options.lowerBound && place.covariance < options.upperBound)) return false;
    const sequence = sequences[place.sequence];
    const t = place.position;
    const token: TokenInput = {
      logprob: sequence.logprobs[t],
      oldLogprob: sequence.oldLogprobs?.[t] ?? sequence.logprobs[t],
      advantage: tokenAdvantage(sequence, t),
      offPolicy: false,
    };
    return ppoTerm(token, options.epsilonLow, options.epsilonHigh).clipped === undefined;
  });
  const count = Math.min(selectionCount(options.ratio, places.length), candidates.length);
  const drawn = new Rng(batchSeed(sequences, options.seed)).shuffle([...candidates]).slice(0, count);
  const stopped = placeKeys(drawn);
  return {
    tokenLoss: (token, resolved) =>
      stopped.has(`${token.sequence}:${token.position}`)
        ? { value: 0, derivative: 0 }
        : ppoTerm(token, resolved.epsilonLow, resolved.epsilonHigh),
    metrics: { 'losses/cov_clipfrac': places.length > 0 ? stopped.size / places.length : 0 },
  };
}

export const clipCov = defineLoss({
  id: 'clip-cov',
  description:
    'PPO clip with the gradient of a few random high-covariance (advantage × log-prob) tokens stopped, against entropy collapse',
  paper: {
    title: 'The Entropy Mechanism of Reinforcement Learning for Reasoning Language Models',
    arxiv: '2505.22617',
    code: 'PRIME-RL/Entropy-Mechanism-of-RL; volcengine/verl core_algos.py compute_policy_loss_clip_cov',
  },
  optionsSchema: clipCovOptionsSchema,
  batchTerm: clipCovBatchTerm,
  requireOldLogprobs: true,
});
