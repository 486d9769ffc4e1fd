// Rollout metrics of a step: reward statistics (and each reward component under reward/<name>), the
// number of completions whose grading failed (reward/errors), completion lengths, stop reasons, the
// Monte-Carlo entropy estimate, and what was practised: the share of sampled problems and the mean reward
// per task and difficulty (selection/…), whatever the selector.
import { mean } from '../../core/stats.ts';
import type { SampledGroup } from './rollout.ts';

export function rolloutMetrics(groups: readonly SampledGroup[]): Record<string, number> {
  const rewards = groups.flatMap((group) => group.rewards);
  const components = new Map<string, number[]>();
  for (const group of groups) {
    for (const result of group.results) {
      for (const [name, value] of Object.entries(result.components)) {
        if (!components.has(name)) components.set(name, []);
        components.get(name)!.push(value);
      }
    }
  }
  const rollouts = groups.flatMap((group) => group.rollouts);
  const lengths = rollouts.map((rollout) => rollout.tokens.length);
  const logprobs = rollouts.flatMap((rollout) => rollout.logprobs);
  const solvedGroups = groups.filter((group) => group.rewards.some((reward) => reward > 0)).length;
  const errors = Object.values(rewardErrorCounts(groups)).reduce((sum, count) => sum + count, 0);
  const metrics: Record<string, number> = {
    'reward/mean': mean(rewards),
    // Completions whose grading failed (scored 0 in its place); reasons: rewardErrorCounts.
    'reward/errors': errors,
    ...judgeFailureMetrics(groups),
    'reward/std': std(rewards),
    'reward/solved_group_frac': groups.length > 0 ? solvedGroups / groups.length : 0,
    'response/length_mean': mean(lengths),
    'response/length_max': lengths.length > 0 ? Math.max(...lengths) : 0,
    'response/truncated_frac': mean(rollouts.map((rollout) => (rollout.stopReason === 'length' ? 1 : 0))),
    // Monte-Carlo estimate of the per-token entropy of π_θ: −E[log π(token)] over sampled tokens
    // (unbiased when sampling at temperature 1 without top-p).
    entropy: logprobs.length > 0 ? -mean(logprobs) : 0,
  };
  for (const [name, values] of components) metrics[`reward/${name}`] = mean(values);
  return { ...metrics, ...selectionMetrics(groups) };
}

/**
 * Of the grading failures, the judges' failed calls and malformed verdicts (RewardResult.failure) and what
 * their policy left out of training: members (exclude) and whole groups (drop-group). Only in steps
 * graded by a judge (a result with a judge_ component or a failure), so other runs' metrics are unchanged.
 */
function judgeFailureMetrics(groups: readonly SampledGroup[]): Record<string, number> {
  const results = groups.flatMap((group) => group.results);
  const judged = results.some(
    (result) =>
      result.failure !== undefined || Object.keys(result.components).some((key) => key.startsWith('judge_')),
  );
  if (!judged) return {};
  return {
    'reward/judge_failures': results.filter((result) => result.failure?.kind === 'judge').length,
    'reward/judge_excluded': results.filter((result) => result.failure?.policy === 'exclude').length,
    'reward/judge_dropped_groups': groups.filter((group) =>
      group.results.some((result) => result.failure?.policy === 'drop-group'),
    ).length,
  };
}

/** How many completions failed to grade, by reason (each distinct reason once, with its count). */
export function rewardErrorCounts(groups: readonly SampledGroup[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const group of groups) {
    for (const result of group.results) {
      if (!result.error) continue;
      const reason = result.reason ?? 'unknown reward error';
      counts[reason] = (counts[reason] ?? 0) + 1;
    }
  }
  return counts;
}

/** selection/share/<task>/<difficulty>, selection/reward/<task>/<difficulty> and selection/difficulty_mean. */
export function selectionMetrics(groups: readonly SampledGroup[]): Record<string, number> {
  const byLevel = new Map<string, number[]>();
  let difficultySum = 0;
  for (const group of groups) {
    const { task, difficulty } = group.attempt.problem;
    const key = `${task}/${difficulty}`;
    if (!byLevel.has(key)) byLevel.set(key, []);
    byLevel.get(key)!.push(mean(group.rewards));
    difficultySum += difficulty;
  }
  if (groups.length === 0) return {};
  const metrics: Record<string, number> = { 'selection/difficulty_mean': difficultySum / groups.length };
  for (const [key, rewards] of byLevel) {
    metrics[`selection/share/${key}`] = rewards.length / groups.length;
    metrics[`selection/reward/${key}`] = mean(rewards);
  }
  return metrics;
}

function std(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const average = mean(values);
  return Math.sqrt(mean(values.map((value) => (value - average) ** 2)));
}
