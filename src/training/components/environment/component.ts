// Run component `environment` (block rollout.environment): every group member is a multi-turn episode
// (episode-groups.ts over src/environments) instead of one sampled completion; the rest of the step —
// grading, advantages, the update with the tool outputs masked from the loss — is unchanged. Episode
// advantages are episode-level (each member's one advantage from the run's estimator). Metrics per step:
// env/turns_mean, env/tool_calls_mean, env/errors/<kind> (counts) and env/end/<reason> (fractions).
// Guidance that rewrites prompts or adds members (anything but identity) and teachers are refused: their
// members would be single-turn completions in multi-turn groups.
import { ConfigError } from '../../../core/errors.ts';
import { buildTools } from '../../../environments/block.ts';
import type { Episode } from '../../../environments/episode-record.ts';
import { defineRlComponent } from '../definition.ts';
import { episodeGroups } from './episode-groups.ts';

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
    if (config.rollout.environment.tools.includes('search') && !config.rollout.environment.documents)
      throw new ConfigError(
        'rollout.environment: the search tool needs `documents` (a JSONL file of {id, title, text})',
      );
  },
  create({ config }) {
    const block = config.rollout.environment;
    if (!block) return null;
    let episodes: Episode[] = [];
    const { tools, close } = buildTools(block);
    return {
      id: 'environment',
      close: async () => close(),
      hooks: {
        sampleGroups: async (scope, attempts, seed, sizes) => {
          const sampled = await episodeGroups(scope.ctx, block, tools, attempts, seed, sizes);
          episodes.push(...sampled.episodes);
          return sampled.groups;
        },
      },
      metrics: () => {
        const metrics = episodeMetrics(episodes);
        episodes = [];
        return metrics;
      },
    };
  },
});
