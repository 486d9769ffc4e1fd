// The groups of an RL step sampled as multi-turn episodes (the run component `environment`): every member
// of an attempt's group is one episode of its own environment (src/environments), run for the whole batch
// at once by runEpisodes. A member's tokens are the episode after the prompt — the policy's turns and the
// tool outputs between them, as the policy saw them — with lossMask 0 on the outputs, so the loss trains
// exactly the sampled tokens; its completion text (actions and outputs) is what the run's reward grades.
// `episodesOf` maps each group to its members' episodes, for a block whose reward is the environment's
// (component.ts puts their returns in place of the run's grades). Each member keeps its episode's turns
// (GroupRollout.episode, spans shifted to index the member's tokens) for the run store's sample browser.
import { crashPoint } from '../../../core/crash-point.ts';
import type { GroupRollout, RolloutEpisode } from '../../../core/groups.ts';
import { type EnvironmentBlock, environmentFor } from '../../../environments/block.ts';
import { runEpisodes } from '../../../environments/episode.ts';
import type { Episode } from '../../../environments/episode-record.ts';
import type { Tool } from '../../../environments/tools/define.ts';
import type { Attempt } from '../../../guidance/guidance.ts';
import type { RlContext } from '../../rl/context.ts';
import { attemptContext, type SampledGroup } from '../../rl/rollout.ts';

/** Turns ended with episodes still going, in this process (crash point `episode-turn@N`). */
let midEpisodeTurns = 0;

export async function episodeGroups(
  ctx: RlContext,
  block: EnvironmentBlock,
  tools: readonly Tool[],
  attempts: readonly Attempt[],
  seed: number,
  sizes: readonly number[] | undefined,
): Promise<{ groups: SampledGroup[]; episodes: Episode[]; episodesOf: Map<SampledGroup, Episode[]> }> {
  const { policy, config } = ctx;
  const tokenizer = policy.tokenizer;
  const contexts = attempts.map((attempt) => {
    if (attempt.memberPrompts || attempt.trainPrompt !== undefined || (attempt.offPolicy?.length ?? 0) > 0)
      throw new RangeError(
        `problem ${attempt.problem.id}: rollout.environment takes plain attempts (no member prompts, training prompt or expert traces)`,
      );
    return attemptContext(tokenizer, attempt, attempt.prompt);
  });
  const owners: number[] = [];
  const environments = attempts.flatMap((_, index) =>
    Array.from({ length: sizes?.[index] ?? config.rollout.groupSize }, () => {
      owners.push(index);
      // The run's reward grades the completion (scoreGroups), not the environment.
      return environmentFor(block, tools, {
        tokenizer,
        prompt: contexts[index],
        grade: () => 0,
        problem: attempts[index].problem,
      });
    }),
  );
  const episodes = await runEpisodes(policy, environments, {
    limits: block.limits,
    maxCompletionTokens: config.rollout.maxTokens,
    temperature: config.rollout.temperature,
    topP: config.rollout.topP,
    seed,
    // Crash tests (test/resume.test.ts) kill here: between two turns of live episodes, mid-episode.
    onTurnEnd: (_turn, live) => {
      if (live > 0) crashPoint('episode-turn', ++midEpisodeTurns);
    },
  });
  const members: GroupRollout[][] = attempts.map(() => []);
  // A member starts after its episode's first observation: the attempt's context for tag-tools and
  // remote, the chat template's rendering of the prompt and the tools for chat (chat/chat-block.ts).
  const starts = episodes.map(
    (episode, k) => episode.turns[0]?.start ?? Math.min(contexts[owners[k]].length, episode.tokens.length),
  );
  episodes.forEach((episode, k) => {
    if (episode.turns.length > 0) contexts[owners[k]] = episode.tokens.slice(0, starts[k]);
  });
  episodes.forEach((episode, k) => {
    const start = starts[k];
    const tokens = episode.tokens.slice(start);
    members[owners[k]].push({
      tokens,
      text: tokenizer.decode(tokens),
      logprobs: episode.logprobs.slice(start),
      samplingLogprobs: episode.samplingLogprobs.slice(start),
      stopReason: episode.turns.at(-1)?.stopReason ?? 'length',
      lossMask: episode.mask.slice(start),
      episode: rolloutEpisode(episode, start),
    });
  });
  const groups = attempts.map((attempt, index) => ({
    attempt,
    context: contexts[index],
    rollouts: members[index],
    completions: members[index].map((member) => attempt.prefix + member.text),
    rewards: [],
    results: [],
  }));
  const episodesOf = new Map<SampledGroup, Episode[]>();
  groups.forEach((group, index) => {
    episodesOf.set(
      group,
      episodes.filter((_, k) => owners[k] === index),
    );
  });
  return { groups, episodes, episodesOf };
}

/** The episode's turns with spans relative to the member's tokens (the episode from `start` on). */
function rolloutEpisode(episode: Episode, start: number): RolloutEpisode {
  return {
    turns: episode.turns.map((turn) => ({
      start: Math.max(0, turn.start - start),
      actionTokens: turn.actionTokens,
      observationTokens: turn.observationTokens,
      observationTokensBefore: turn.observationTokensBefore,
      reward: turn.reward,
      stopReason: turn.stopReason,
      ...(turn.error && { error: { kind: turn.error.kind, message: turn.error.message } }),
    })),
    end: episode.end,
    ...(episode.environmentError !== undefined && { environmentError: episode.environmentError }),
    errors: { ...episode.errors },
  };
}
