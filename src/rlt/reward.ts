// The RLT teacher reward as a pure function over log-probs (Cetin, Zhao & Tang, "Reinforcement Learning
// Teachers of Test Time Scaling", Sakana AI 2025, §3; authors' code SakanaAI/RLT @86a3f5c,
// trainers/teacher_rewards.py `TeacherKLBasedReward.process_single_reward`, defaults from
// cfgs/run_cfg/teacher_rlt.yaml, which overrides cfgs/trainer_cfg/reward_cfg/teacher_logprob_kl.yaml).
//
// The teacher sees a question and its reference solution and writes an explanation; a frozen student then
// reads question + explanation + solution. With
//   ℓ_t  the student's log-probs of the SOLUTION tokens,
//   s_t  the student's log-probs of the EXPLANATION tokens (in that same context),
//   τ_t  the teacher's log-probs of the explanation tokens (in its own context),
//   k_t = τ_t − s_t  (per-token sample estimate of KL(π_T ‖ π_S); optionally Schulman's k − 1 + e^−k),
// the reward is
//   r = r_SS − r_KL + match,   r_SS = λ1·mean ℓ + λ1'·min ℓ,   r_KL = λ2·mean k + λ2'·max k,
// match = notMatchedPenalty (−1) when the explanation's format is missing, else 0.
// Defaults (run cfg): [λ1, λ1'] = [1, 0.01], [λ2, λ2'] = [3, 0.03] (the reward cfg file alone has
// [5, 0.05] for both); no normalisation; clip_log_prob = clip_kl = 1e5.
//
// Quirks kept exactly as the authors' code has them:
// - ℓ_t is floored at −clipLogProb (torch.clamp(min=−1e5)) before reduction; k_t is capped at +clipKl
//   (clamp(max=1e5)) but has no floor, so a negative k (the teacher less sure than the student) is a bonus.
// - A NaN reduction (NaN log-probs, an empty span) becomes notMatchedPenalty (−1) for each ℓ term but
//   −notMatchedPenalty (+1) for each KL term (torch.nan_to_num with nan=∓penalty). An empty explanation
//   therefore costs r_KL = λ2 + λ2' = 3.03 (in the authors' code both reductions of a zero-width tensor
//   fail and are replaced by NaN). NaN propagates through min/max as torch.min/max do.
// Deviation: an empty solution is rejected (RangeError) — in the authors' code min ℓ over an empty mask is
// the float32 maximum (≈3.4e38), which would swamp every other term; a problem without a worked solution
// is refused at config time (teach-config.ts) so this never reaches a run.
import { z } from 'zod';

export const rltRewardOptionsSchema = z.strictObject({
  /** (λ1, λ1'): weights of mean and min of the solution log-probs ℓ (run cfg [1, 0.01]). */
  solutionCoefficients: z.tuple([z.number(), z.number()]).default([1, 0.01]),
  /** (λ2, λ2'): weights of mean and max of the per-token KL k (run cfg [3, 0.03]). */
  klCoefficients: z.tuple([z.number(), z.number()]).default([3, 0.03]),
  /** ℓ_t is floored at −clipLogProb (authors: clip_log_prob 1e5). */
  clipLogProb: z.number().positive().default(1e5),
  /** k_t is capped at clipKl (authors: clip_kl 1e5). */
  clipKl: z.number().positive().default(1e5),
  /** Added when the explanation's format is missing; its negation replaces NaN KL terms (authors: −1). */
  notMatchedPenalty: z.number().default(-1),
  /** k_t − 1 + e^{−k_t} instead of k_t (authors: use_schulman_kl_estimation false). */
  schulmanKl: z.boolean().default(false),
});
export type RltRewardOptions = z.output<typeof rltRewardOptionsSchema>;

export const defaultRltRewardOptions: RltRewardOptions = rltRewardOptionsSchema.parse({});

export interface RltRewardInput {
  /** ℓ: the student's log-probs of the solution tokens, in order (non-empty). */
  solutionLogprobs: readonly number[];
  /** s: the student's log-probs of the explanation tokens. */
  studentExplanationLogprobs: readonly number[];
  /** τ: the teacher's log-probs of the same explanation tokens (same length as s). */
  teacherExplanationLogprobs: readonly number[];
  /** false when the explanation's format is missing (the teacher never closed it). */
  formatMatched: boolean;
}

export interface RltRewardParts {
  reward: number;
  /** λ1·mean ℓ + λ1'·min ℓ (after the NaN replacement). */
  rSs: number;
  /** λ2·mean k + λ2'·max k (after the NaN replacement); subtracted from the reward. */
  rKl: number;
  /** 0, or notMatchedPenalty when the format is missing. */
  match: number;
  meanLogProb: number;
  minLogProb: number;
  meanKl: number;
  maxKl: number;
}

export function rltReward(
  input: RltRewardInput,
  options: RltRewardOptions = defaultRltRewardOptions,
): RltRewardParts {
  const { solutionLogprobs: ell, studentExplanationLogprobs: s, teacherExplanationLogprobs: tau } = input;
  if (ell.length === 0) {
    throw new RangeError('RLT reward: the solution has no tokens (an empty solution cannot be scored)');
  }
  if (s.length !== tau.length) {
    throw new RangeError(
      `RLT reward: ${tau.length} teacher and ${s.length} student log-probs of the explanation; they must score the same tokens`,
    );
  }
  const penalty = options.notMatchedPenalty;
  const floored = ell.map((value) => (Number.isNaN(value) ? value : Math.max(value, -options.clipLogProb)));
  const meanLogProb = nanTo(mean(floored), penalty);
  const minLogProb = nanTo(reduceNan(floored, Math.min), penalty);

  const kl = tau.map((teacher, t) => {
    const k = teacher - s[t];
    const estimate = options.schulmanKl ? k - 1 + Math.exp(-k) : k;
    return Number.isNaN(estimate) ? estimate : Math.min(estimate, options.clipKl);
  });
  const meanKl = nanTo(mean(kl), -penalty);
  const maxKl = nanTo(reduceNan(kl, Math.max), -penalty);

  const [lambda1, lambda1Min] = options.solutionCoefficients;
  const [lambda2, lambda2Max] = options.klCoefficients;
  const rSs = lambda1 * meanLogProb + lambda1Min * minLogProb;
  const rKl = lambda2 * meanKl + lambda2Max * maxKl;
  const match = input.formatMatched ? 0 : penalty;
  return { reward: rSs - rKl + match, rSs, rKl, match, meanLogProb, minLogProb, meanKl, maxKl };
}

/** Mean; NaN for an empty list (0/0, as the masked torch mean) or when any value is NaN. */
function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** min/max that return NaN for an empty list or when any value is NaN (torch.min/max semantics). */
function reduceNan(values: readonly number[], pick: (a: number, b: number) => number): number {
  if (values.length === 0) return Number.NaN;
  let result = values[0];
  for (const value of values) {
    if (Number.isNaN(value)) return Number.NaN;
    result = pick(result, value);
  }
  return result;
}

function nanTo(value: number, replacement: number): number {
  return Number.isNaN(value) ? replacement : value;
}
