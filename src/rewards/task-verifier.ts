// The `verifier` reward: grades each completion with its problem's own task verifier (src/tasks):
// reward 1 when the extracted answer is correct, 0 otherwise, with the verifier's reason.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Reward, RewardResult } from '../core/reward.ts';
import { tasks } from '../tasks/index.ts';
import { defineReward } from './registry.ts';

const optionsSchema = z.strictObject({
  /** Reward for a correct answer. */
  correct: z.number().default(1),
  /** Reward for a wrong or missing answer. */
  incorrect: z.number().default(0),
});

export function createTaskVerifierReward(options: unknown): Reward {
  const { correct, incorrect } = parseConfig(optionsSchema, options ?? {}, "reward 'verifier' options");
  return {
    name: 'verifier',
    async score(inputs) {
      return inputs.map(({ problem, completion }): RewardResult => {
        const verdict = tasks.get(problem.task).verify(problem, completion);
        return verdict.correct
          ? { reward: correct, components: { correct: 1 } }
          : { reward: incorrect, components: { correct: 0 }, reason: verdict.reason ?? 'wrong answer' };
      });
    },
  };
}

export const taskVerifierReward = defineReward({
  id: 'verifier',
  description: "1 when the problem's own task verifier accepts the extracted answer, else 0",
  optionsSchema: optionsSchema,
  create: createTaskVerifierReward,
});
