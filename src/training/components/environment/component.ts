// Run component `environment` (block rollout.environment): every group member is a multi-turn episode
// (episode-groups.ts over src/environments) instead of one sampled completion; the rest of the step —
// grading, advantages, the update with the tool outputs masked from the loss — is unchanged. Episode
// advantages are episode-level (each member's one advantage from the run's estimator). Metrics per step:
// env/turns_mean, env/tool_calls_mean, env/errors/<kind> (counts) and env/end/<reason> (fractions).
// Guidance that rewrites prompts or adds members (anything but identity) and teachers are refused: their
// members would be single-turn completions in multi-turn groups.
// A `chat` block (the policy's chat template, src/environments/chat/chat-block.ts) is refused at the run's
// start when the policy's tokenizer has no chat template.
// A `remote` block (an ORS server, src/environments/remote) is checked once at the run's start (the server
// answers and serves the environment); with `reward: environment` (its default) each member's reward is
// its episode's return — the server's rewards — put in place of the run's grade after grading (afterGrade),
// and an episode that ended on an environment error is a reward error (0, reward/errors, its reason kept).
// With the block's `credit: turn` it answers advantageTerms: per-token advantages, each turn's sampled
// tokens weighted by that turn's leave-one-out advantage (turn-credit.ts; metrics env/credit/…).
import { ConfigError } from '../../../core/errors.ts';
import type { RewardResult } from '../../../core/reward.ts';
import { buildTools } from '../../../environments/block.ts';
import { chatTemplateTokenizer } from '../../../environments/chat/chat-block.ts';
import type { Episode } from '../../../environments/episode-record.ts';
import { searchesPerProblem } from '../../../environments/problem-search.ts';
import { checkRemoteServer } from '../../../environments/remote/remote-block.ts';
import { sampleEpisodesAndVerify } from '../../../eval/evaluate-episodes.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { defineRlComponent } from '../definition.ts';
import { episodeGroups } from './episode-groups.ts';
import { turnCredit } from './turn-credit.ts';

function episodeMetrics(episodes: readonly Episode[]): Record<string, number> {
  if (episodes.length === 0) return {};
  const metrics: Record<string, number> = {
    'env/turns_mean': episodes.reduce((sum, e) => sum + e.turns.length, 0) / episodes.length,
    'env/tool_calls_mean':
      episodes.reduce((sum, e) => sum + (e.metrics.tool_calls ?? 0), 0) / episodes.length,
  };
  for (const kind of ['parse', 'tool', 'environment'] as const)
    metrics[`env/errors/${kind}`] = episodes.reduce((sum, e) => sum + e.errors[kind], 0);
  for (const episode of episodes)
    metrics[`env/end/${episode.end}`] = (metrics[`env/end/${episode.end}`] ?? 0) + 1 / episodes.length;
  return metrics;
}

/** A member's grade from its episode: the environment's rewards, or a reward error with its reason. */
function environmentResult(episode: Episode): RewardResult {
  if (episode.end === 'environment_error')
    return {
      reward: 0,
      components: {},
      reason: `environment error: ${episode.environmentError ?? 'unknown'}`,
      error: true,
    };
  return { reward: episode.return, components: { environment: episode.return }, reason: '' };
}

export const environmentComponent = defineRlComponent({
  id: 'environment',
  block: 'rollout.environment',
  description: 'rollout.environment: group members as multi-turn episodes with tools (src/environments)',
  validate: (config) => {
    if (!config.rollout.environment) return;
    if (config.guidance.name !== 'identity')
      throw new ConfigError(
        `rollout.environment cannot run with guidance '${config.guidance.name}' (only identity): its members would be single-turn`,
      );
    if (config.teacher)
      throw new ConfigError(
        'rollout.environment cannot run with a teacher block: its help rounds sample single-turn',
      );
    const block = config.rollout.environment;
    if (block.credit === 'episode' && block.callFormatReward > 0)
      throw new ConfigError(
        'rollout.environment: callFormatReward is a per-turn reward; it needs `credit: turn`',
      );
    // tag-tools without a documents file searches each problem's own documents (problem-search.ts).
    if (
      block.name !== 'remote' &&
      !searchesPerProblem(block) &&
      block.tools.includes('search') &&
      !block.documents
    )
      throw new ConfigError(
        'rollout.environment: the search tool needs `documents` (a JSONL file of {id, title, text})',
      );
  },
  async create({ config, policy }) {
    const block = config.rollout.environment;
    if (!block) return null;
    if (block.name === 'remote') await checkRemoteServer(block);
    // A chat block needs the policy tokenizer's chat template: refused now, not at the first episode.
    if (block.name === 'chat') chatTemplateTokenizer(policy.tokenizer, block.templateName);
    const environmentReward = block.name === 'remote' && block.reward === 'environment';
    let episodes: Episode[] = [];
    let episodesOf = new Map<SampledGroup, Episode[]>();
    let creditMetrics: Record<string, number> = {};
    const { tools, close } = buildTools(block);
    return {
      id: 'environment',
      close: async () => close(),
      hooks: {
        sampleGroups: async (scope, attempts, seed, sizes) => {
          const sampled = await episodeGroups(scope.ctx, block, tools, attempts, seed, sizes);
          episodes.push(...sampled.episodes);
          if (environmentReward) for (const [group, of] of sampled.episodesOf) episodesOf.set(group, of);
          return sampled.groups;
        },
        afterGrade: async (_scope, groups) => {
          for (const group of groups) {
            const of = episodesOf.get(group);
            if (!of) continue;
            group.results = of.map(environmentResult);
            group.rewards = group.results.map((result) => result.reward);
          }
          episodesOf = new Map();
        },
        ...(block.credit === 'turn' && {
          advantageTerms: async (_scope, groups, estimate) => {
            const credit = turnCredit(groups, estimate, {
              environmentRewards: environmentReward,
              callFormatReward: block.callFormatReward,
              callFormatCap: block.callFormatCap,
            });
            creditMetrics = credit.metrics;
            return credit.tokenAdvantages;
          },
        }),
        // The held-out evaluation runs in the same environment (tools included) as training.
        sampleEvaluation: (policy, problems, options) =>
          sampleEpisodesAndVerify(policy, problems, { block, tools }, options),
      },
      metrics: () => {
        const metrics = { ...episodeMetrics(episodes), ...creditMetrics };
        episodes = [];
        creditMetrics = {};
        return metrics;
      },
    };
  },
});
