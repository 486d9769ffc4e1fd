// GMPO: maximise the geometric mean of the token ratios of a sequence, with each token's log-ratio clipped
// first. Per sequence i with |y_i| loss tokens, l_t = logp_t − logp_old_t, and sgn = sign(A_t),
//   m_t = sgn · min(sgn·l_t, sgn·clamp(l_t, −ε_low, ε_high))          (the pessimistic side, per token)
//   ρ_i = exp( (1/|y_i|) Σ_t m_t ),   Ā_i = (1/|y_i|) Σ_t A_t,   J = (1/B) Σ_i Ā_i · ρ_i
// ∂(−Ā_i ρ_i)/∂logp_t = −Ā_i·ρ_i/|y_i| where m_t follows l_t, 0 where it is held at a bound. The geometric
// mean is less moved by one outlier token than PPO/GRPO's arithmetic mean of ratios, which lets the range
// be wider (e^±0.4 against 1 ± 0.2). Paper: "Geometric-Mean Policy Optimization" (Zhao et al. 2025),
// arXiv 2507.20673; authors' code callsys/GMPO (train_zero_math_gmpo.py). Reference: verl
// `compute_policy_loss_geo_mean` (verl/trainer/ppo/core_algos.py) and examples/gmpo_trainer; read for the
// formula and the defaults, none of it copied.
//
// Token form: every loss token of sequence i carries the value −Ā_i·ρ_i and the derivative −Ā_i·ρ_i (0 on
// a held token); with seq-mean-token-mean (c = 1/(B·|y_i|)) the loss is verl's (1/B) Σ_i −Ā_i ρ_i and the
// weights its gradient. Because the value is the same at every token of a sequence, any aggregation gives
// weights that are the derivative of its loss (token-mean weighs sequence i by |y_i|).
//
// Defaults from the paper and the verl recipe: ε_low = ε_high = 0.4 (on the log-ratio), seq-mean-token-mean.
// Deviations: verl adds 1e-8 to |y_i| in both means (here a sequence without loss tokens contributes 0);
// verl ignores loss_agg_mode, here the other modes are honoured when asked for; with a per-token rollout
// correction each token's weight multiplies its term (its gradient), where verl multiplies the sequence's
// loss by the geometric mean of the weights; with per-sequence correction modes the two agree.
// losses/clipfrac_high and _low follow verl's pg_clipfrac / pg_clipfrac_lower: loss tokens with A > 0
// (resp. A < 0) whose log-ratio lies outside the range, whichever side the min took.
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

export const gmpoOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** GMPO's own aggregation: the mean over sequences (verl's torch.mean over the batch). */
  aggregation: z.enum(aggregationModes).default('seq-mean-token-mean'),
  /** Each token's log-ratio is clipped below at −epsilonLow (paper, verl recipe: 0.4). */
  epsilonLow: z.number().nonnegative().default(0.4),
  /** Each token's log-ratio is clipped above at epsilonHigh (paper, verl recipe: 0.4). */
  epsilonHigh: z.number().nonnegative().default(0.4),
});
export type GmpoOptions = z.output<typeof gmpoOptionsSchema>;

/** Token t's clipped log-ratio m_t, and whether it follows l_t (its gradient is 1) or is held at a bound. */
export function gmpoLogRatio(
  token: TokenInput,
  options: GmpoOptions,
): { value: number; follows: boolean; outside: boolean } {
  const l = token.logprob - token.oldLogprob;
  const clamped = Math.min(options.epsilonHigh, Math.max(-options.epsilonLow, l));
  const sign = Math.sign(token.advantage);
  // sgn·min(sgn·l, sgn·lc): for A > 0 the smaller of l and lc, for A < 0 the larger; A = 0 gives 0.
  if (sign === 0) return { value: 0, follows: false, outside: l !== clamped };
  const followsRaw = sign * l <= sign * clamped;
  return { value: followsRaw ? l : clamped, follows: followsRaw, outside: l !== clamped };
}

interface SequenceStats {
  /** log ρ_i: the masked mean of m_t. */
  logRatio: number;
  /** Ā_i: the masked mean of the advantages. */
  advantage: number;
}

function sequenceStats(sequence: LossSequence, options: GmpoOptions): SequenceStats {
  let logRatio = 0;
  let advantage = 0;
  let count = 0;
  sequence.logprobs.forEach((logprob, t) => {
    if (sequence.mask[t] === 0) return;
    const a = typeof sequence.advantages === 'number' ? sequence.advantages : sequence.advantages[t];
    const oldLogprob = sequence.oldLogprobs?.[t] ?? logprob;
    logRatio += gmpoLogRatio({ logprob, oldLogprob, advantage: a, offPolicy: false }, options).value;
    advantage += a;
    count++;
  });
  return count > 0
    ? { logRatio: logRatio / count, advantage: advantage / count }
    : { logRatio: 0, advantage: 0 };
}

/** GMPO's term at one token of a sequence with statistics `stats`. */
export function gmpoToken(token: TokenInput, stats: SequenceStats, options: GmpoOptions): TokenTerm {
  const { follows, outside } = gmpoLogRatio(token, options);
  const value = -stats.advantage * Math.exp(stats.logRatio);
  const clipped = !outside
    ? undefined
    : token.advantage > 0
      ? 'high'
      : token.advantage < 0
        ? 'low'
        : undefined;
  return { value, derivative: follows ? value : 0, clipped };
}

export function gmpoBatchTerm(
  sequences: readonly LossSequence[],
  options: GmpoOptions,
): BatchTerm<GmpoOptions> {
  const stats = sequences.map((sequence) => sequenceStats(sequence, options));
  const ratios = stats.map((entry) => Math.exp(entry.logRatio));
  return {
    tokenLoss: (token, resolved) => gmpoToken(token, stats[token.sequence ?? 0], resolved),
    metrics: {
      'losses/sequence_ratio_mean':
        ratios.length > 0 ? ratios.reduce((sum, value) => sum + value, 0) / ratios.length : 0,
    },
  };
}

export const gmpo = defineLoss({
  id: 'gmpo',
  description:
    'maximises the geometric mean of token-clipped ratios of each sequence (a wider range than PPO at the same stability)',
  paper: {
    title: 'Geometric-Mean Policy Optimization',
    arxiv: '2507.20673',
    code: 'callsys/GMPO; volcengine/verl core_algos.py compute_policy_loss_geo_mean',
  },
  optionsSchema: gmpoOptionsSchema,
  batchTerm: gmpoBatchTerm,
  requireOldLogprobs: true,
});
