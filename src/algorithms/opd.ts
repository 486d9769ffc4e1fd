// On-policy distillation (OPD): a teacher's per-token log-probs of the student's OWN sampled tokens turn
// into a dense advantage term (Agarwal et al., "On-Policy Distillation of Language Models", arXiv
// 2306.13649; Thinking Machines, "On-Policy Distillation", 2025; code: thinking-machines-lab/tinker-cookbook
// `distillation/train_on_policy.py` `incorporate_kl_penalty`, @9dfcc3a, and `rl/metrics.py`
// `discounted_future_sum_vectorized`). Per completion token t:
//
//   k_t     = lp_sampler_t − lp_teacher_t                 (per-token reverse-KL estimate, student ‖ teacher)
//   opd_t   = −coef · mask_t · k_t                         (= coef·(lp_teacher_t − lp_sampler_t))
//   opd_t  ← Σ_{s ≥ t} γ^{s−t} · opd_s                     (only when discount γ > 0)
//   adv_t   = task_adv + opd_t                             (task_adv = 0 when taskAdvantage is off)
//
// lp_sampler is the log-prob recorded when the token was sampled (not a fresh forward; the cookbook's
// `loss_fn_inputs["logprobs"]`), lp_teacher comes from one teacher forward over the same tokens. The term
// is a stop-gradient advantage: the teacher's numbers are constants to the loss.
//
// Defaults are the cookbook's (`Config.kl_penalty_coef = 1.0`, `kl_discount_factor = 0.0`). The cookbook
// always adds the task advantage (group-centred reward, no std division: configure `dr-grpo` to match);
// its pure-distillation recipe has no reward, i.e. task_adv = 0, which `taskAdvantage: false` gives here.
//
// Deviation (the authors' mask quirk): with γ > 0 the cookbook discounts the masked term and does NOT
// re-apply the mask afterwards, so positions with mask 0 BEFORE a completion token (prompt or observation
// tokens of its multi-turn datums) receive the discounted future KL as their advantage. Here the mask is
// re-applied after the sum: tokens the student did not sample (mask 0: expert-trace tokens) never carry
// the term. In single-turn completions with every token sampled the two agree exactly.
import { z } from 'zod';
import { parseOptions } from './options.ts';

export const opdOptionsSchema = z.strictObject({
  /** Weight of the teacher term (cookbook kl_penalty_coef: 1.0). */
  coef: z.number().nonnegative().default(1),
  /** γ of the discounted future sum of the term (cookbook kl_discount_factor: 0 = per token). */
  discount: z.number().min(0).max(1).default(0),
  /** Keep the configured estimator's task advantage (true) or distil only (false: task_adv = 0). */
  taskAdvantage: z.boolean().default(true),
});
export type OpdOptions = z.output<typeof opdOptionsSchema>;

export interface OpdSequence {
  /** The sequence's task advantage (the configured estimator's), broadcast to every token. */
  taskAdvantage: number;
  /** log-prob of each completion token recorded by the sampler. [T] */
  samplerLogprobs: readonly number[];
  /** log-prob of the same tokens under the teacher (aligned: entry t scores completion token t). [T] */
  teacherLogprobs: readonly number[];
  /** 1 for the student's own sampled tokens, 0 for tokens that carry no teacher term. [T] */
  mask: readonly number[];
}

export interface OpdResult {
  /** [sequence][token] adv_t = task_adv + opd_t. */
  advantages: number[][];
  /** Σ k_t over masked tokens and their count (teacher/kl is their ratio; summed across calls by callers). */
  klSum: number;
  tokens: number;
}

/** x_t ← Σ_{s ≥ t} γ^{s−t} x_s (cookbook discounted_future_sum_vectorized). */
export function discountedFutureSum(values: readonly number[], discount: number): number[] {
  const result = new Array<number>(values.length);
  let running = 0;
  for (let t = values.length - 1; t >= 0; t--) {
    running = values[t] + discount * running;
    result[t] = running;
  }
  return result;
}

export function opdAdvantages(sequences: readonly OpdSequence[], rawOptions?: unknown): OpdResult {
  const options = parseOptions(opdOptionsSchema, rawOptions, 'on-policy distillation');
  let klSum = 0;
  let tokens = 0;
  const advantages = sequences.map((sequence, index) => {
    const length = sequence.samplerLogprobs.length;
    if (sequence.teacherLogprobs.length !== length || sequence.mask.length !== length) {
      throw new RangeError(
        `OPD sequence ${index}: samplerLogprobs ${length}, teacherLogprobs ${sequence.teacherLogprobs.length}, mask ${sequence.mask.length}`,
      );
    }
    let term = sequence.samplerLogprobs.map((samplerLogprob, t) => {
      if (sequence.mask[t] === 0) return 0;
      const k = samplerLogprob - sequence.teacherLogprobs[t];
      klSum += k;
      tokens += 1;
      return -options.coef * k;
    });
    if (options.discount > 0) {
      term = discountedFutureSum(term, options.discount).map((value, t) =>
        sequence.mask[t] === 0 ? 0 : value,
      );
    }
    const task = options.taskAdvantage ? sequence.taskAdvantage : 0;
    return term.map((value) => task + value);
  });
  return { advantages, klSum, tokens };
}
