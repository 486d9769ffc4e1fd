// `reward-model`: the score of a reward model trained here by `curricula train-rm` (Bradley–Terry, head.ts;
// the RLHF reward model of "Training language models to follow instructions with human feedback",
// arXiv 2203.02155, and TRL's RewardTrainer) as a reward. The checkpoint is loaded in this process on first use (one policy worker), each batch is
// scored in one forward pass, and the reward is the head's score r(x) (`output: logit`, default, what TRL's
// and OpenRLHF's RM rewards pass to the trainer) or σ(r) (`output: probability`, in [0, 1]). A completion
// whose prompt + completion does not fit the model's context scores 0 with a reason and `error`. The
// proxy/gold experiments (Gao et al., "Scaling Laws for Reward Model Overoptimization", arXiv 2210.10760)
// train a policy against this reward while the task verifier measures the truth.
import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import type { Reward, RewardResult } from '../../core/reward.ts';
import { loadEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { tasks } from '../../tasks/index.ts';
import { defineReward } from '../registry.ts';
import { headInput, headScores } from './head.ts';

export const rewardModelOptionsSchema = z.strictObject({
  /** A model directory written by `curricula train-rm` (its best or final model). */
  checkpoint: z.string().min(1),
  output: z.enum(['logit', 'probability']).default('logit'),
});

const WHERE = "reward 'reward-model'";

export function createRewardModelReward(options: unknown): Reward {
  const { checkpoint, output } = parseConfig(rewardModelOptionsSchema, options ?? {}, `${WHERE} options`);
  let policy: Promise<PolicyBackend> | null = null;
  const load = () => {
    policy ??= loadEmbeddedPolicy(checkpoint, 1);
    return policy;
  };
  return {
    name: 'reward-model',
    // a learned grader: its score of a reference solution may be negative (no setup check)
    usesJudge: true,
    async score(inputs) {
      const model = await load();
      const encoded = inputs.map(({ problem, completion }) =>
        headInput(model.tokenizer, model.contextLength, problem.prompt, completion),
      );
      const fitting = encoded.flatMap((tokens) => (tokens ? [tokens] : []));
      const scores = await headScores(model, fitting);
      let next = 0;
      return encoded.map((tokens, index): RewardResult => {
        if (!tokens) {
          return {
            reward: 0,
            components: {},
            reason: `prompt + completion do not fit the reward model's context (${model.contextLength})`,
            error: true,
          };
        }
        const logit = scores[next++];
        const reward = output === 'logit' ? logit : 1 / (1 + Math.exp(-logit));
        return {
          reward,
          components: { rm_logit: logit, ...goldOf(inputs[index].problem, inputs[index].completion) },
        };
      });
    },
    async close() {
      if (policy) await (await policy).close?.();
      policy = null;
    },
  };
}

/**
 * The truth beside the proxy: gold_correct (the task verifier's verdict) when the problem is a synthetic
 * task's with an answer, logged as reward/gold_correct and never part of the reward (Gao et al.'s gold).
 */
function goldOf(problem: Problem, completion: string): Record<string, number> {
  if (problem.answer.trim() === '' || !tasks.has(problem.task)) return {};
  return { gold_correct: tasks.get(problem.task).verify(problem, completion).correct ? 1 : 0 };
}

export const rewardModelReward = defineReward({
  id: 'reward-model',
  description:
    'the score of a Bradley–Terry reward model trained by `curricula train-rm` (its logit, or σ of it)',
  paper: {
    title:
      'Training language models to follow instructions with human feedback (Bradley–Terry reward model); TRL RewardTrainer',
    arxiv: '2203.02155',
    code: 'huggingface/trl trl/trainer/reward_trainer.py',
  },
  optionsSchema: rewardModelOptionsSchema,
  create: (options) => createRewardModelReward(options),
});
