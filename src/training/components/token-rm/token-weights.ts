// OREAL's token weights from a token-level reward model (arXiv 2502.06781; InternLM/OREAL train_oreal.py,
// `threshold_rescale`, read for the formula): the model scores every completion position, s_t; the running
// mean m_t = (s_1 + … + s_t)/t turns into the probability that the answer is still on track,
// p_t = σ(m_t); a correct sample's token weighs w⁺_t = clamp((p_t − τ⁺)/(1 − τ⁺), 0, 1), a wrong sample's
// w⁻_t = clamp(((1 − p_t) − τ⁻)/(1 − τ⁻), 0, 1). So a correct sample is cloned where the model thinks it
// is right, a wrong one pushed down from where the model thinks it went wrong. Pure functions.

/** clamp((p − τ)/(1 − τ), 0, 1): the authors' threshold_rescale. */
export function thresholdRescale(probability: number, threshold: number): number {
  return Math.min(1, Math.max(0, (probability - threshold) / (1 - threshold)));
}

/** w_t of one completion from its position scores (see the header). */
export function orealTokenWeights(
  scores: readonly number[],
  correct: boolean,
  thresholds: { correctThreshold: number; incorrectThreshold: number },
): number[] {
  let sum = 0;
  return scores.map((score, t) => {
    sum += score;
    const p = 1 / (1 + Math.exp(-sum / (t + 1)));
    return correct
      ? thresholdRescale(p, thresholds.correctThreshold)
      : thresholdRescale(1 - p, thresholds.incorrectThreshold);
  });
}
