// Advantages over the members that were graded (issue 31 item 4): a member whose grading failed under an
// `exclude` policy (RewardResult.failure) is left out of its group's baseline — the estimator sees the
// group without it, as TRL leaves an unscorable completion out of the group mean and std — and gets
// advantage 0, outside the batch (included false). A `drop-group` failure leaves its whole group out. A
// group left with fewer members than the estimator's minimum teaches nothing: every member is out. The
// estimator is called once over the whole batch of reduced groups, so batch statistics (REINFORCE++'s
// whitening) are over the graded members only.
import type { AdvantageEstimate, AdvantageEstimator, RewardGroup } from './estimator.ts';

/** A group and, per member, whether it is left out (true) of the baseline and the batch. */
export interface GradedGroup extends RewardGroup {
  leftOut: readonly boolean[];
}

export function estimateGraded(
  estimator: AdvantageEstimator,
  groups: readonly GradedGroup[],
  options: unknown,
): AdvantageEstimate {
  if (groups.every((group) => !group.leftOut.includes(true))) return estimator.estimate(groups, options);
  const kept = groups.map((group) => {
    const members = group.rewards.flatMap((_, i) => (group.leftOut[i] ? [] : [i]));
    return members.length >= estimator.minGroupSize ? members : [];
  });
  const reducedAt = kept.flatMap((members, g) => (members.length > 0 ? [g] : []));
  const reduced = estimator.estimate(
    reducedAt.map((g) => ({
      rewards: kept[g].map((i) => groups[g].rewards[i]),
      ...(groups[g].lengths ? { lengths: kept[g].map((i) => groups[g].lengths![i]) } : {}),
    })),
    options,
  );
  const advantages = groups.map((group) => group.rewards.map(() => 0));
  const included = groups.map((group) => group.rewards.map(() => false));
  reducedAt.forEach((g, r) => {
    kept[g].forEach((i, k) => {
      advantages[g][i] = reduced.advantages[r][k];
      included[g][i] = reduced.included[r][k];
    });
  });
  return { advantages, included };
}

/** Which members of a group its results leave out (exclude: that member; drop-group: all). */
export function leftOutMembers(results: readonly { failure?: { policy: string } }[]): boolean[] {
  if (results.some((result) => result.failure?.policy === 'drop-group')) return results.map(() => true);
  return results.map((result) => result.failure?.policy === 'exclude');
}
