// Run component `remax`: the greedy baseline of ReMax (src/algorithms/advantages/remax.ts), on when
// `algorithm.advantage.name` is 'remax' (no block of its own). After each rollout round it samples one
// greedy (temperature 0) completion per group from the group's context, with the round's token limit,
// and grades it with the run's reward; at the advantage phase it answers each trained sample's advantage
// r_i − r_greedy, broadcast over the sample's tokens. The greedy completions are not trained on; their
// tokens are counted in sampling/remax_tokens (the cost axis of an equal-tokens comparison) and their
// mean reward is remax/greedy_reward. Greedy decoding draws no random numbers, so the run's random
// stream is untouched.
import { remaxAdvantages } from '../../../algorithms/advantages/remax.ts';
import { ConfigError } from '../../../core/errors.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { scoreGroups } from '../../rl/rollout.ts';
import { sampleRows } from '../../rl/sample-rows.ts';
import { defineRlComponent } from '../definition.ts';

export const remaxComponent = defineRlComponent({
  id: 'remax',
  description:
    "remax: one greedy completion per prompt, graded, as the baseline of advantage 'remax' (ReMax)",
  validate(config) {
    if (config.algorithm.advantage.name !== 'remax') return;
    if (config.teacher?.opd || config.rollout.environment) {
      throw new ConfigError(
        `advantage 'remax' sets each sample's advantage from its greedy baseline; ${config.teacher?.opd ? 'teacher.opd' : 'rollout.environment'} sets per-token advantages too: use one of the two`,
      );
    }
  },
  create: ({ config }) => {
    if (config.algorithm.advantage.name !== 'remax') return null;
    const baselines = new WeakMap<SampledGroup, number>();
    let tokens = 0;
    let rewardSum = 0;
    let groupsSeen = 0;
    return {
      id: 'remax',
      hooks: {
        beforeSelect: async () => {
          tokens = 0;
          rewardSum = 0;
          groupsSeen = 0;
        },
        afterGrade: ({ ctx, step, timer }, groups) =>
          timer.timeAsync('remax_greedy', async () => {
            if (groups.length === 0) return;
            const { policy } = ctx;
            const limits = groups.map((group) =>
              Math.max(
                1,
                Math.min(ctx.config.rollout.maxTokens, policy.contextLength - group.context.length),
              ),
            );
            const sampled = await sampleRows(
              policy,
              groups.map((group) => group.context),
              groups.map(() => 1),
              limits,
              { temperature: 0, topP: 1, seed: 0 },
            );
            const greedy: SampledGroup[] = groups.map((group, g) => ({
              attempt: group.attempt,
              context: group.context,
              rollouts: sampled[g],
              completions: sampled[g].map((sequence) => group.attempt.prefix + sequence.text),
              rewards: [],
              results: [],
            }));
            await scoreGroups(ctx, greedy, step);
            groups.forEach((group, g) => {
              baselines.set(group, greedy[g].rewards[0]);
              tokens += sampled[g][0].tokens.length;
              rewardSum += greedy[g].rewards[0];
              groupsSeen++;
            });
          }),
        advantageTerms: async (_scope, groups, estimate) =>
          groups.map((group, g) => {
            const baseline = baselines.get(group);
            if (baseline === undefined) return group.rollouts.map(() => undefined);
            const advantages = remaxAdvantages(group.rewards, baseline);
            return group.rollouts.map((rollout, i) =>
              estimate.included[g][i] ? rollout.tokens.map(() => advantages[i]) : undefined,
            );
          }),
      },
      metrics: () => ({
        'sampling/remax_tokens': tokens,
        'remax/greedy_reward': groupsSeen > 0 ? rewardSum / groupsSeen : 0,
      }),
    };
  },
});
