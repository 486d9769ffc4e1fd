// One RL step, top to bottom (ARCHITECTURE.md, "One RL step"):
//   (beforeSelect) → select → guide → (planSizes) → sample (or sampleGroups) (afterSample) → grade (afterGrade) → filter →
//   (extraGroups) → reference, KL → advantages (advantageTerms) → update (afterUpdate) → observe.
// The core phases are named functions; the optional features are run components (rl/context.ts,
// src/training/components/) whose hooks run at the phases in parentheses, in registration order. This file
// imports no component: it only sequences the phases, calls the hooks and collects metrics and timings.

import { estimateGraded, leftOutMembers } from '../../algorithms/advantages/unscored.ts';
import { fillBatch } from '../../algorithms/dynamic-sampling.ts';
import { klRewardPenalty, referenceKl } from '../../algorithms/kl.ts';
import { klCoefficientAt } from '../../algorithms/kl-schedule.ts';
import { type GroupOutcome, selectorStateMetrics } from '../../core/selector.ts';
import { batchFilter } from './batch-filter.ts';
import type { RlContext, RlStepHooks, StepScope } from './context.ts';
import { rewardErrorCounts, rolloutMetrics } from './metrics.ts';
import { type SampledGroup, sampleGroups, scoreGroups } from './rollout.ts';
import { recordAdvantages } from './sample-records.ts';
import { PhaseTimer } from './timer.ts';
import { updatePolicy } from './update.ts';

export interface StepReport {
  metrics: Record<string, number>;
  /** Every group sampled this step (including the ones dynamic sampling dropped). */
  groups: SampledGroup[];
  /** Completions of this step whose grading failed, counted by reason (empty when none failed). */
  rewardErrors: Record<string, number>;
}

export async function rlStep(ctx: RlContext, step: number, learningRate: number): Promise<StepReport> {
  const timer = new PhaseTimer();
  const scope: StepScope = { ctx, step, learningRate, timer };
  const hooks = ctx.components.map((component) => component.hooks);
  const sampledAll: SampledGroup[] = [];
  for (const hook of hooks) await hook.beforeSelect?.(scope);

  const rollOut = async (count: number): Promise<SampledGroup[]> => {
    const problems = timer.time('select', () => ctx.selector.select(count, ctx.rng));
    const attempts = timer.time('guidance', () => ctx.guidance.plan(problems, step));
    const sizes = firstAnswer(hooks, (hook) => hook.planSizes?.(scope, problems)); // undefined: groupSize each
    const seed = ctx.rng.nextUint32();
    const groups = await timer.timeAsync(
      'sample',
      () =>
        firstAnswer(hooks, (hook) => hook.sampleGroups?.(scope, attempts, seed, sizes)) ??
        sampleGroups(ctx, attempts, seed, sizes),
    );
    for (const hook of hooks) await hook.afterSample?.(scope, attempts, groups);
    await timer.timeAsync('reward', () => scoreGroups(ctx, groups, step));
    for (const hook of hooks) await hook.afterGrade?.(scope, groups);
    sampledAll.push(...groups);
    return groups;
  };

  // Batch filters (DAPO dynamic sampling, VCRL): keep groups with a learning signal, top up with more.
  const filter = batchFilter(ctx.config.algorithm);
  const filled = filter
    ? await fillBatch(ctx.config.train.batchSize, rollOut, 1 + filter.maxRounds, filter.keep)
    : { groups: await rollOut(ctx.config.train.batchSize), rounds: 1 };
  let groups = filled.groups;
  for (const hook of hooks) {
    const extra = hook.extraGroups?.(scope, groups) ?? [];
    if (extra.length > 0) groups = [...groups, ...extra];
  }

  const refLogprobs = ctx.reference
    ? await timer.timeAsync('reference', () => referenceLogprobs(ctx, groups))
    : null;
  const klCoefficient = klCoefficientAt(ctx.config.algorithm.kl, step, ctx.config.train.steps);
  const klMetrics = {
    ...(refLogprobs ? referenceKlMetrics(groups, refLogprobs) : {}),
    ...applyKlRewardPenalty(ctx, groups, refLogprobs, klCoefficient),
    ...(ctx.config.algorithm.kl.anneal && { 'kl/coefficient': klCoefficient }),
  };
  // Members whose grading failed under an exclude or drop-group policy are left out (unscored.ts).
  const estimate = timer.time('advantages', () =>
    estimateGraded(
      ctx.advantage,
      groups.map((group) => ({
        rewards: group.rewards,
        lengths: group.rollouts.map((rollout) => rollout.tokens.length),
        leftOut: leftOutMembers(group.results),
      })),
      ctx.advantageOptions,
    ),
  );
  let tokenAdvantages: (number[] | undefined)[][] | undefined;
  for (const hook of hooks) tokenAdvantages ??= await hook.advantageTerms?.(scope, groups, estimate);
  recordAdvantages(groups, estimate, tokenAdvantages); // for the run store (sample-records.ts)
  const update = await timer.timeAsync('update', () =>
    updatePolicy(ctx, groups, estimate, learningRate, refLogprobs, tokenAdvantages, klCoefficient),
  );
  const afterUpdate: Record<string, number> = {};
  for (const hook of hooks) Object.assign(afterUpdate, await hook.afterUpdate?.(scope, sampledAll));
  timer.time('observe', () => {
    const outcomes = toOutcomes(sampledAll, groups, estimate.advantages);
    ctx.selector.observe(step, outcomes);
    ctx.guidance.observe(step, outcomes);
    for (const hook of hooks) hook.observe?.(outcomes);
  });

  const metrics: Record<string, number> = {
    ...rolloutMetrics(sampledAll),
    ...update.metrics,
    ...klMetrics,
    ...afterUpdate,
    'sampling/groups': sampledAll.length,
    // Completion tokens sampled this step, over every group (the dropped ones too): the cost axis of an
    // equal-tokens comparison (a batch filter samples more per step than plain GRPO).
    // Multi-turn episodes (rollout.environment) count the tool outputs in them too; policy_tokens counts
    // only what the policy sampled (lossMask 1).
    'sampling/tokens': sampledAll.reduce(
      (sum, group) => sum + group.rollouts.reduce((total, rollout) => total + rollout.tokens.length, 0),
      0,
    ),
    'sampling/policy_tokens': sampledAll.reduce(
      (sum, group) =>
        sum +
        group.rollouts.reduce(
          (total, rollout) =>
            total + (rollout.lossMask ? rollout.lossMask.reduce((n, m) => n + m, 0) : rollout.tokens.length),
          0,
        ),
      0,
    ),
    'sampling/trained_groups': groups.length,
    'sampling/trained_sequences': update.trainedSequences,
    'sampling/filtered_frac': sampledAll.length > 0 ? 1 - groups.length / sampledAll.length : 0,
    'sampling/rounds': filled.rounds,
    'train/lr': learningRate,
    ...ctx.selector.metrics(),
    ...selectorStateMetrics(ctx.selector),
    ...ctx.guidance.metrics(),
    ...Object.assign({}, ...ctx.components.map((component) => component.metrics?.() ?? {})),
    ...timer.metrics(),
  };
  return { metrics, groups: sampledAll, rewardErrors: rewardErrorCounts(sampledAll) };
}

/** The first hook's answer that is not undefined (planSizes, advantageTerms: one component decides). */
function firstAnswer<T>(
  hooks: readonly RlStepHooks[],
  ask: (hook: RlStepHooks) => T | undefined,
): T | undefined {
  for (const hook of hooks) {
    const answer = ask(hook);
    if (answer !== undefined) return answer;
  }
  return undefined;
}

/** Log-probs of every trained completion under the frozen reference policy: [group][sample][token]. */
async function referenceLogprobs(ctx: RlContext, groups: readonly SampledGroup[]): Promise<number[][][]> {
  const sequences = groups.flatMap((group) =>
    group.rollouts.map((rollout) => [...group.context, ...rollout.tokens]),
  );
  const all = await ctx.reference!.forward(sequences);
  let offset = 0;
  return groups.map((group) =>
    group.rollouts.map(() => {
      const logprobs = all[offset++];
      return logprobs.slice(group.context.length - 1);
    }),
  );
}

/** The KL of this step's trained completions to the reference, logged whenever one is loaded (kl/ref_*). */
function referenceKlMetrics(
  groups: readonly SampledGroup[],
  refLogprobs: number[][][],
): Record<string, number> {
  const kl = referenceKl(
    groups.flatMap((group, g) =>
      group.rollouts.map((rollout, i) => ({
        logprobs: rollout.logprobs,
        refLogprobs: refLogprobs[g][i],
        // Tool outputs in a multi-turn episode (lossMask 0) were not sampled by the policy.
        mask: rollout.lossMask ?? rollout.tokens.map(() => 1),
      })),
    ),
  );
  return { 'kl/ref_sequence_k1': kl.sequence, 'kl/ref_token_k1': kl.tokenK1, 'kl/ref_token_k3': kl.tokenK3 };
}

/** KL as a reward penalty (algorithm.kl.mode = 'reward'): r ← r − β·Σ_t k_t before advantages (β of this step). */
function applyKlRewardPenalty(
  ctx: RlContext,
  groups: SampledGroup[],
  refLogprobs: number[][][] | null,
  coefficient: number,
): Record<string, number> {
  const kl = ctx.config.algorithm.kl;
  if (!refLogprobs || kl.mode !== 'reward') return {};
  let total = 0;
  let count = 0;
  groups.forEach((group, g) => {
    const penalty = klRewardPenalty(
      group.rollouts.map((rollout, i) => ({
        logprobs: rollout.logprobs,
        refLogprobs: refLogprobs[g][i],
        mask: rollout.tokens.map(() => 1),
      })),
      { estimator: kl.estimator, coefficient },
    );
    group.rewards = group.rewards.map((reward, i) => reward + penalty.perSequence[i]);
    for (const value of penalty.perSequence) {
      total += value;
      count++;
    }
  });
  return { 'reward/kl_penalty': count > 0 ? total / count : 0 };
}

/** What the selector and guidance learn from: every sampled group, with its advantages when trained. */
function toOutcomes(
  sampledAll: readonly SampledGroup[],
  trained: readonly SampledGroup[],
  advantages: number[][],
): GroupOutcome[] {
  const trainedIndex = new Map(trained.map((group, index) => [group, index]));
  return sampledAll.map((group) => {
    const index = trainedIndex.get(group);
    return {
      problem: group.attempt.problem,
      rewards: group.rewards,
      advantages: index === undefined ? group.rewards.map(() => 0) : advantages[index],
    };
  });
}
