// VCRL batch filter: drop the groups whose rewards vary too little to teach, so that each training batch
// holds only groups near the edge of the policy's competence.
// Paper: Jiang et al., "VCRL: Variance-based Curriculum Reinforcement Learning for Large Language Models",
// arXiv 2509.19803 (reference/curricula.md A5). No code from the authors was found (search of public
// repositories, 2026-12-01), so everything here is from the paper's text.
// Score [paper]: for a group of G rewards with k successes, the unbiased variance σ² = k(G−k)/(G(G−1))
// over its maximum σ²_max = G/(4(G−1)) (even G) or (G+1)/(4G) (odd G): p = σ²/σ²_max ∈ [0, 1]; 1 at
// k ≈ G/2, 0 when every sample is right or every sample is wrong. Keep the group iff p ≥ κ.
// Here σ² is the unbiased sample variance of the rewards themselves, which for 0/1 rewards is exactly the
// paper's k(G−k)/(G(G−1)) (tested against vcrlScore); partial-credit rewards in [0, 1] get the same scale
// (σ²_max is still the largest variance G values in [0, 1] can have). Rewards outside [0, 1] can give
// p > 1; they are kept whenever their spread is large enough.
// The trainer refills the batch as DAPO dynamic sampling does (fillBatch: sample more problems, at most
// `maxRounds` extra rounds, then train on what was kept). The paper refills from a memory bank of
// high-p problems: the `vcrl` selector keeps that bank, so selector 'vcrl' + this filter is the paper's
// full method.
// Deviations / [unverified]: κ = 0.3 (the paper's value and schedule are not verified; the same default as
// the vcrl selector); a group of one sample scores 0 and is dropped (its variance is undefined).
// Note: with 0/1 rewards and G = 8 the smallest non-zero score is 0.4375 (1 or 7 right), so κ = 0.3 keeps
// exactly the groups DAPO's dynamic sampling keeps (measured: bit-identical ladder runs,
// experiments/ladder-curricula); κ in (0.4375, 0.75] also drops 1-of-8 and 7-of-8 groups.
import { z } from 'zod';
import type { RewardedGroup } from '../core/groups.ts';

export const vcrlFilterSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** κ: keep a group iff its normalised reward variance p ≥ κ. */
    threshold: z.number().min(0).max(1).default(0.3),
    /** Extra sampling rounds per step before training on a partial batch. */
    maxRounds: z.number().int().nonnegative().default(3),
  })
  .default({ enabled: false, threshold: 0.3, maxRounds: 3 });

export type VcrlFilterOptions = z.output<typeof vcrlFilterSchema>;

/** p = unbiased variance of the rewards / σ²_max(G); 0 for fewer than two rewards. */
export function normalizedGroupVariance(rewards: readonly number[]): number {
  const G = rewards.length;
  if (G < 2) return 0;
  let mean = 0;
  for (const reward of rewards) mean += reward / G;
  let squares = 0;
  for (const reward of rewards) squares += (reward - mean) ** 2;
  const variance = squares / (G - 1);
  const maximum = G % 2 === 0 ? G / (4 * (G - 1)) : (G + 1) / (4 * G);
  return variance / maximum;
}

/** The keep rule for fillBatch: p ≥ κ. A relative tolerance absorbs rounding of p at exactly κ. */
export function vcrlKeep(threshold: number): (group: RewardedGroup) => boolean {
  return (group) => normalizedGroupVariance(group.rewards) >= threshold - 1e-12;
}
