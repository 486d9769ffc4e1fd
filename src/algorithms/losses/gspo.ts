// GSPO: the clipped surrogate on a sequence-level importance ratio. Per sequence i with |y_i| loss tokens,
//   s_i = exp( (1/|y_i|) Σ_t (logp_{i,t} − logp_old_{i,t}) )        (the geometric mean of the token ratios)
//   J = (1/G) Σ_i min(s_i·A_i, clip(s_i, 1−ε_low, 1+ε_high)·A_i)
// in its token form (GSPO-token, which the paper shows equal to GSPO when every token of a sequence has
// the sequence's advantage): s_{i,t} = sg[s_i]·π(y_t)/sg[π(y_t)], whose value is s_i at every token and
// whose gradient is s_i·∇logp_{i,t}; per token ℓ = max(−A·s_{i,t}, −A·clip(s_{i,t})), ∂ℓ/∂logp = −A·s_i on the
// unclipped branch and 0 on a clipped one; with seq-mean-token-mean aggregation the gradient is GSPO's
// (1/G)·(1/|y_i|)·s_i·A_i·∇logp per token. Paper: "Group Sequence Policy Optimization" (Zheng et al., Qwen
// 2025), arXiv 2507.18071, eq. 5–7 and 10–11. Reference: verl `compute_policy_loss_gspo`
// (verl/trainer/ppo/core_algos.py), read for the formula and its defaults; none of it is copied.
//
// Defaults from the paper's experiments and verl's GSPO recipe: ε_low 3e-4 and ε_high 4e-4 (a sequence
// ratio stays near 1, so the range is narrow), seq-mean-token-mean aggregation, the log sequence ratio
// clamped above at 10 before exp (verl; the gradient is 0 where it clamps), no dual clip (verl's GSPO has
// none). losses/clipfrac counts tokens on a clipped branch (verl: pg_losses2 > pg_losses1); ppo_kl,
// approx_kl and ratio_mean are the token-level ones of every loss; losses/sequence_ratio_mean is the mean
// s over sequences. Deviation: none known; a sequence with no loss tokens contributes nothing. Expert
// tokens (a loss built by expert-tokens.ts) are not offered: the sequence ratio of a mixed trace is not
// GSPO's.
import { z } from 'zod';
import { aggregationModes } from './aggregation.ts';
import {
  aggregationOptionsShape,
  type BatchTerm,
  defineLoss,
  type LossSequence,
  type TokenInput,
  type TokenTerm,
} from './policy-loss.ts';

export const gspoOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** GSPO's own aggregation: the mean over sequences of each sequence's token mean. */
  aggregation: z.enum(aggregationModes).default('seq-mean-token-mean'),
  /** s is clipped below at 1 − epsilonLow (paper, verl recipe: 3e-4). */
  epsilonLow: z.number().nonnegative().default(3e-4),
  /** s is clipped above at 1 + epsilonHigh (paper, verl recipe: 4e-4). */
  epsilonHigh: z.number().nonnegative().default(4e-4),
  /** log s is clamped above at this before exp (verl: 10). */
  logRatioClamp: z.number().positive().default(10),
});
export type GspoOptions = z.output<typeof gspoOptionsSchema>;

/** The masked mean of logp − logp_old of each sequence (0 where a sequence has no loss tokens). */
export function sequenceLogRatios(sequences: readonly LossSequence[]): number[] {
  return sequences.map((sequence) => {
    let sum = 0;
    let count = 0;
    sequence.logprobs.forEach((logprob, t) => {
      if (sequence.mask[t] === 0) return;
      sum += logprob - (sequence.oldLogprobs?.[t] ?? logprob);
      count++;
    });
    return count > 0 ? sum / count : 0;
  });
}

/**
 * GSPO-token's term for one token of a sequence whose log s is `logS` (the token's own log-ratio enters
 * only through the gradient: the value of s_{i,t} is s_i).
 */
export function gspoToken(token: TokenInput, logS: number, options: GspoOptions): TokenTerm {
  const { advantage: a } = token;
  const logRatio = Math.min(options.logRatioClamp, logS);
  const s = Math.exp(logRatio);
  const clippedRatio = Math.min(1 + options.epsilonHigh, Math.max(1 - options.epsilonLow, s));
  const unclipped = -a * s;
  const clipped = -a * clippedRatio;
  if (clipped > unclipped) return { value: clipped, derivative: 0, clipped: a > 0 ? 'high' : 'low' };
  return { value: unclipped, derivative: logRatio === logS ? -a * s : 0 };
}

/** GSPO's term for a batch: each token's sequence ratio, and the mean s over sequences. */
export function gspoBatchTerm(
  sequences: readonly LossSequence[],
  options: GspoOptions,
): BatchTerm<GspoOptions> {
  const logS = sequenceLogRatios(sequences);
  const ratios = logS.map((value) => Math.exp(Math.min(options.logRatioClamp, value)));
  return {
    tokenLoss: (token, resolved) => gspoToken(token, logS[token.sequence ?? 0], resolved),
    metrics: {
      'losses/sequence_ratio_mean':
        ratios.length > 0 ? ratios.reduce((sum, value) => sum + value, 0) / ratios.length : 0,
    },
  };
}

export const gspo = defineLoss({
  id: 'gspo',
  description:
    'clipped surrogate on the sequence-level importance ratio (geometric mean of token ratios), GSPO-token form',
  paper: {
    title: 'Group Sequence Policy Optimization',
    arxiv: '2507.18071',
    code: 'volcengine/verl core_algos.py compute_policy_loss_gspo',
  },
  optionsSchema: gspoOptionsSchema,
  batchTerm: gspoBatchTerm,
  requireOldLogprobs: true,
});
