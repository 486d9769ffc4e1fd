// The pure arithmetic of evolving rubrics, over one group's verdict matrix (criterion × member, each verdict
// in [0, 1] oriented so that 1 is good: a negative criterion's "yes" counts 0).
//   RLER (DR Tulu, open-instruct `rubrics/metrics.py filter_rubric_buffer`): an evolving criterion whose
//     verdicts have zero spread across the group tells nothing and is deactivated; if more than `maxActive`
//     remain, the ones with the largest spread are kept.
//   RRD ("recursive rubric refinement", digest ¶56; no public code, so this follows the paper's account):
//     a criterion nearly every response satisfies is coarse and is decomposed (elsewhere: a judge call); a
//     criterion that disagrees with the rest of the rubric (its verdicts correlate negatively with the
//     others' score) is misaligned; one that repeats an earlier criterion (correlation above a threshold)
//     is redundant; and weights are correlation-aware: a criterion's weight is divided by the summed positive
//     correlation with every criterion (itself included), so k copies of one signal weigh as one.
// Deviations (RRD): misalignment is judged against the rubric's own leave-one-out score, not against
// preference labels (an RL step has none); correlations are Pearson's over the group's members.

/** Population standard deviation (0 for fewer than two values). */
export function spread(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
}

/** Pearson correlation; 0 when either side has no spread. */
export function correlation(a: readonly number[], b: readonly number[]): number {
  const sa = spread(a);
  const sb = spread(b);
  if (sa === 0 || sb === 0) return 0;
  const ma = a.reduce((x, y) => x + y, 0) / a.length;
  const mb = b.reduce((x, y) => x + y, 0) / b.length;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - ma) * (b[i] - mb);
  return sum / a.length / (sa * sb);
}

/**
 * RRD's correlation-aware weights: base_c / Σ_j max(0, corr(c, j)) over all criteria (corr(c, c) = 1), so a
 * criterion with no correlated neighbour keeps its weight and k perfectly correlated ones share one.
 */
export function correlationWeights(
  verdicts: readonly (readonly number[])[],
  base: readonly number[],
): number[] {
  return verdicts.map((row, c) => {
    let mass = 1;
    verdicts.forEach((other, j) => {
      if (j !== c) mass += Math.max(0, correlation(row, other));
    });
    return base[c] / mass;
  });
}

/** RLER's filter over the evolving criteria: the ones to deactivate, zero spread first, then over the cap. */
export function rlerDeactivations(
  verdicts: readonly (readonly number[])[],
  maxActive: number,
): { index: number; why: 'no-spread' | 'over-cap' }[] {
  const spreads = verdicts.map(spread);
  const zero = spreads.flatMap((value, index) => (value === 0 ? [{ index, why: 'no-spread' as const }] : []));
  const over = spreads
    .map((value, index) => ({ value, index }))
    .filter(({ value }) => value > 0)
    .sort((a, b) => b.value - a.value || a.index - b.index)
    .slice(maxActive)
    .map(({ index }) => ({ index, why: 'over-cap' as const }));
  return [...zero, ...over];
}

/** RRD's redundancy: each criterion whose correlation with an earlier kept one is ≥ `above`. */
export function redundant(verdicts: readonly (readonly number[])[], above: number): number[] {
  const kept: number[] = [];
  const dropped: number[] = [];
  verdicts.forEach((row, c) => {
    if (kept.some((k) => correlation(row, verdicts[k]) >= above)) dropped.push(c);
    else kept.push(c);
  });
  return dropped;
}

/**
 * RRD's misalignment: criteria whose verdicts correlate at or below −`below` with the weighted score of all
 * the other criteria (their leave-one-out rubric score).
 */
export function misaligned(
  verdicts: readonly (readonly number[])[],
  weights: readonly number[],
  below: number,
): number[] {
  if (verdicts.length < 2) return [];
  const members = verdicts[0].length;
  return verdicts.flatMap((row, c) => {
    const others = Array.from({ length: members }, (_, m) => {
      let total = 0;
      let mass = 0;
      verdicts.forEach((other, j) => {
        if (j === c) return;
        total += weights[j] * other[m];
        mass += weights[j];
      });
      return mass > 0 ? total / mass : 0;
    });
    return correlation(row, others) <= -below ? [c] : [];
  });
}

/** RRD's coarse criteria: satisfied (verdict ≥ 0.5, oriented) by at least `above` of the members. */
export function coarse(verdicts: readonly (readonly number[])[], above: number): number[] {
  return verdicts.flatMap((row, c) =>
    row.length > 0 && row.filter((value) => value >= 0.5).length / row.length >= above ? [c] : [],
  );
}
