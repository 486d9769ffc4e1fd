// One RL step, top to bottom (ARCHITECTURE.md, "One RL step"):
//   select → guide → (budget) → sample (+ inject expert traces) → grade (+ retry, + teacher help) → filter →
//   advantages → (distil: teacher term, distillation.ts) → update → observe.
// Each phase is a named function; this file only sequences them and collects metrics and timings.

import { fillBatch } from '../../algorithms/dynamic-sampling.ts';
import { klRewardPenalty } from '../../algorithms/kl.ts';
import { type GroupOutcome, selectorStateMetrics } from '../../core/selector.ts';
import { generatorGroups } from '../../selfplay/generator-groups.ts';
import { selfPlayRound } from '../../selfplay/round.ts';
import { batchFilter } from './batch-filter.ts';
import type { RlContext } from './context.ts';
import { distillationPhase } from './distillation.ts';
import { hasExpertTraces, injectExpertTraces } from './expert-traces.ts';
import { rewardErrorCounts, rolloutMetrics } from './metrics.ts';
import { retryRound } from './retry-round.ts';
import { type SampledGroup, sampleGroups, scoreGroups } from './rollout.ts';
import { recordAdvantages } from './sample-records.ts';
import { teacherHelpRound } from './teacher-help-round.ts';
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
  const { batchSize } = ctx.config.train;
  const sampledAll: SampledGroup[] = [];
  // Self-play (src/selfplay/round.ts): every N steps the policy proposes problems; admitted ones join the pool.
  const selfPlay = ctx.selfPlay;
  const round =
    selfPlay && step % selfPlay.config.every === 0
      ? await timer.timeAsync('selfplay', () =>
          selfPlayRound(selfPlay, ctx.policy, ctx.rng, step, {
            temperature: ctx.config.rollout.temperature,
            maxTokens: ctx.config.rollout.maxTokens,
            perPrompt: selfPlay.config.trainGenerator ? ctx.config.rollout.groupSize : 1,
          }),
        )
      : null;
  const selfPlayMetrics = round?.metrics ?? selfPlay?.pool.metrics() ?? {};

  const rollOut = async (count: number): Promise<SampledGroup[]> => {
    const problems = timer.time('select', () => ctx.selector.select(count, ctx.rng));
    const attempts = timer.time('guidance', () => ctx.guidance.plan(problems, step));
    // Adaptive rollout budget: samples per problem by outcome uncertainty (null budget: groupSize each).
    const sizes = ctx.budget ? timer.time('budget', () => ctx.budget!.plan(problems)) : undefined;
    const groups = await timer.timeAsync('sample', () =>
      sampleGroups(ctx, attempts, ctx.rng.nextUint32(), sizes),
    );
    // Off-policy guidance (LUFFY / Prefix-RFT): expert traces replace some of the sampled members.
    if (hasExpertTraces(attempts)) {
      await timer.timeAsync('inject', () => injectExpertTraces(ctx, groups, ctx.rng.nextUint32()));
    }
    await timer.timeAsync('reward', () => scoreGroups(ctx, groups, step));
    // Reflect-then-retry (guidance 'retry'): a second, helped round for failed groups (retry-round.ts).
    if (ctx.guidance.retry) {
      await timer.timeAsync('retry', () => retryRound(ctx, groups, step, ctx.rng.nextUint32()));
    }
    // AMPO (guidance 'ampo'): teacher solutions replace failed members (teacher-help-round.ts).
    if (ctx.guidance.teacherHelp) {
      await timer.timeAsync('teacher_help', () => teacherHelpRound(ctx, groups, step));
    }
    sampledAll.push(...groups);
    return groups;
  };

  // Batch filters (DAPO dynamic sampling, VCRL): keep only groups with a learning signal, top up with
  // fresh problems.
  const filter = batchFilter(ctx.config.algorithm);
  let groups: SampledGroup[];
  let rounds = 1;
  if (filter) {
    const filled = await fillBatch(batchSize, rollOut, 1 + filter.maxRounds, filter.keep);
    groups = filled.groups;
    rounds = filled.rounds;
  } else {
    groups = await rollOut(batchSize);
  }

  // The generator's statements, rewarded hard-but-solvable, train the same policy (selfPlay.trainGenerator).
  if (round && selfPlay?.config.trainGenerator) groups = [...groups, ...generatorGroups(round.groups, step)];
  const refLogprobs = ctx.reference
    ? await timer.timeAsync('reference', () => referenceLogprobs(ctx, groups))
    : null;
  const klMetrics = applyKlRewardPenalty(ctx, groups, refLogprobs);
  const estimate = timer.time('advantages', () =>
    ctx.advantage.estimate(
      groups.map((group) => ({
        rewards: group.rewards,
        lengths: group.rollouts.map((rollout) => rollout.tokens.length),
      })),
      ctx.advantageOptions,
    ),
  );
  // On-policy distillation / privileged-hint: per-token advantages with the teacher's term.
  const distilled = ctx.distillation
    ? await timer.timeAsync('teacher', () => distillationPhase(ctx, groups, estimate))
    : null;
  recordAdvantages(groups, estimate, distilled?.tokenAdvantages); // for the run store (sample-records.ts)
  const update = await timer.timeAsync('update', () =>
    updatePolicy(ctx, groups, estimate, learningRate, refLogprobs, distilled?.tokenAdvantages),
  );
  // ReLIFT: failed problems into the SFT buffer, and an SFT update when it is full (relift.ts).
  const relift = ctx.relift
    ? await timer.timeAsync('relift', () => ctx.relift!.afterRl(ctx, sampledAll, step, learningRate))
    : {};

  timer.time('observe', () => {
    const outcomes = toOutcomes(sampledAll, groups, estimate.advantages);
    ctx.selector.observe(step, outcomes);
    ctx.guidance.observe(step, outcomes);
    ctx.budget?.observe(outcomes);
  });

  const metrics: Record<string, number> = {
    ...rolloutMetrics(sampledAll),
    ...update.metrics,
    ...klMetrics,
    ...relift,
    'sampling/groups': sampledAll.length,
    'sampling/trained_groups': groups.length,
    'sampling/trained_sequences': update.trainedSequences,
    'sampling/filtered_frac': sampledAll.length > 0 ? 1 - groups.length / sampledAll.length : 0,
    'sampling/rounds': rounds,
    'train/lr': learningRate,
    ...ctx.selector.metrics(),
    ...selectorStateMetrics(ctx.selector),
    ...ctx.guidance.metrics(),
    ...(ctx.budget?.metrics() ?? {}),
    ...distilled?.metrics,
    ...ctx.teachers?.takeMetrics(),
    ...selfPlayMetrics,
    ...timer.metrics(),
  };
  return { metrics, groups: sampledAll, rewardErrors: rewardErrorCounts(sampledAll) };
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

/** KL as a reward penalty (algorithm.kl.mode = 'reward'): r ← r − β·Σ_t k_t before advantages. */
function applyKlRewardPenalty(
  ctx: RlContext,
  groups: SampledGroup[],
  refLogprobs: number[][][] | null,
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
      { estimator: kl.estimator, coefficient: kl.coefficient },
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
