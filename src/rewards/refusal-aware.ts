// The `refusal-aware` reward: grades answerable and unanswerable problems alike, paying an explicit refusal
// (the answer line `A:unanswerable`, tasks/unanswerable-countdown.ts) on a problem with no solution and
// penalising both a made-up answer there and a refusal of a problem that has one.
// Paper: "The Hallucination Tax of Reinforcement Finetuning" (Song et al., arXiv 2505.13988, digest ¶25):
// RFT with ~10% unanswerable problems (SUM) whose expected answer is the refusal; a rule-based reward
// gives 1 for the right answer or the right refusal and 0 otherwise. Those binary values are the defaults
// here (the authors' code was not found in the index; the rule is the paper's description); the penalties
// are options so that a made-up answer or a false refusal can cost more than silence.
//
//   problem        | completion                    | reward (default) | components
//   unanswerable   | refusal                       | refusal    (1)   | refused 1, unanswerable_refused 1
//   unanswerable   | anything else (or no answer)  | madeUp     (0)   | made_up 1, unanswerable_refused 0
//   answerable     | refusal                       | falseRefusal (0) | false_refusal 1
//   answerable     | correct (the task's verifier) | correct    (1)   | correct 1
//   answerable     | wrong or no answer            | wrong      (0)   | correct 0
//
// A problem is unanswerable when metadata.unanswerable is true. Why a reward and not an option of the
// `verifier`: the verifier of the unanswerable task already pays the refusal (its verify), but the
// penalties and the refusal/false-refusal rates are about the mix of both kinds, which one reward sees
// and one task's verifier does not. Rates per step: reward/unanswerable_refused (refusal rate on
// unanswerable problems: the component exists only there), reward/false_refusal (on answerable ones),
// reward/correct (accuracy on answerable ones).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Reward, RewardInput, RewardResult } from '../core/reward.ts';
import { tasks } from '../tasks/index.ts';
import { isRefusal, isUnanswerable } from '../tasks/unanswerable-countdown.ts';
import { defineReward } from './registry.ts';

const optionsSchema = z.strictObject({
  /** Reward for refusing an unanswerable problem. */
  refusal: z.number().default(1),
  /** Reward for answering (anything but the refusal) an unanswerable problem. */
  madeUp: z.number().default(0),
  /** Reward for refusing an answerable problem. */
  falseRefusal: z.number().default(0),
  /** Reward for a correct answer to an answerable problem. */
  correct: z.number().default(1),
  /** Reward for a wrong or missing answer to an answerable problem. */
  wrong: z.number().default(0),
});

export type RefusalAwareOptions = z.input<typeof optionsSchema>;

export function createRefusalAwareReward(options: unknown): Reward {
  const parsed = parseConfig(optionsSchema, options ?? {}, "reward 'refusal-aware' options");

  function grade(input: RewardInput): RewardResult {
    const refused = isRefusal(input.completion);
    if (isUnanswerable(input.problem)) {
      return refused
        ? { reward: parsed.refusal, components: { refused: 1, unanswerable_refused: 1 } }
        : {
            reward: parsed.madeUp,
            components: { refused: 0, unanswerable_refused: 0, made_up: 1 },
            reason: 'made-up answer to a problem with no solution',
          };
    }
    if (refused) {
      return {
        reward: parsed.falseRefusal,
        components: { refused: 1, false_refusal: 1, correct: 0 },
        reason: 'refused a problem that has a solution',
      };
    }
    const verdict = tasks.get(input.problem.task).verify(input.problem, input.completion);
    const result: RewardResult = {
      reward: verdict.correct ? parsed.correct : parsed.wrong,
      components: { refused: 0, false_refusal: 0, correct: verdict.correct ? 1 : 0 },
    };
    if (!verdict.correct) result.reason = verdict.reason ?? 'wrong answer';
    return result;
  }

  return {
    name: 'refusal-aware',
    async score(inputs: readonly RewardInput[]) {
      return inputs.map(grade);
    },
  };
}

export const refusalAwareReward = defineReward({
  id: 'refusal-aware',
  description:
    'pays the right answer or an explicit refusal of an unanswerable problem; penalises made-up answers',
  paper: { title: 'The Hallucination Tax of Reinforcement Finetuning', arxiv: '2505.13988' },
  optionsSchema: optionsSchema,
  create: createRefusalAwareReward,
});
