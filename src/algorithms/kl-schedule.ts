// The KL coefficient over training (`algorithm.kl.anneal`): KDRL's annealing of β from a strong pull toward
// the teacher early to a weak one late, so that imitation gives way to reward optimisation. Paper: "KDRL:
// Post-Training Reasoning LLMs via Unified Knowledge Distillation and Reinforcement Learning" (Xu et al.
// 2025), arXiv 2506.02208, §4 (KL coefficient): β annealed from 5e-3 to 1e-3. No authors' code is public;
// the schedule's form here is linear in the step,
//   β(s) = β₀ + (β₁ − β₀)·min(1, (s − 1)/(S − 1)),   s = 1 … ,  S = anneal.steps (default train.steps),
// with β₀ = algorithm.kl.coefficient and β₁ = anneal.to, constant at β₁ after step S. Deviation: the paper's
// exact shape between the endpoints (and whether it is per step or per stage) is not verified; pick the
// endpoints with `coefficient` and `to`. The same β applies to the loss term and to the reward penalty.
// A run extended with --resume --steps keeps its stored anneal.steps when one is set; without it S grows
// with train.steps (as the learning-rate schedule does).
import { z } from 'zod';

export const klAnnealSchema = z.strictObject({
  /** β₁: the coefficient at step `steps` and after (KDRL: 1e-3 from 5e-3). */
  to: z.number().min(0),
  /** S: the step at which β reaches `to`; absent = train.steps. */
  steps: z.number().int().positive().optional(),
});
export type KlAnneal = z.output<typeof klAnnealSchema>;

/** β at `step` (from 1) of a run of `totalSteps`: the coefficient, or its linear anneal toward `anneal.to`. */
export function klCoefficientAt(
  kl: { coefficient: number; anneal?: KlAnneal | undefined },
  step: number,
  totalSteps: number,
): number {
  if (!kl.anneal) return kl.coefficient;
  const span = kl.anneal.steps ?? totalSteps;
  const x = span > 1 ? Math.min(1, Math.max(0, (step - 1) / (span - 1))) : 1;
  return kl.coefficient + (kl.anneal.to - kl.coefficient) * x;
}
