// The `next-token` reward (RPT): the model reasons, then predicts what comes next in the text; reward 1 when
// the prediction is right. Paper: "Reinforcement Pre-Training" (Dong et al., arXiv 2506.08007, digest ¶3).
// RPT's prefix-matching reward: the prediction earns 1 when its bytes are a prefix of the ground-truth
// continuation AND its length lands on a token boundary of that continuation (so a prediction may span
// several tokens, but never stops inside one); 0 otherwise. Taken from the paper (§3.2 and appendix A,
// as summarised in public write-ups found with `search`); the authors' code was not found, so no default
// comes from code.
// What "token" means here: the embedded models' tokenizer is one token per character, under which the
// prefix rule would pay any first character and most answers would be a space. So a token is a
// whitespace-delimited WORD (the text-corpus task cuts at word starts, src/tasks/text-corpus.ts, difficulty
// 1): the valid boundaries are the ends of the words of the continuation (the rest of the cut's line).
// `match: 'exact'` pays only the single next word. Works on any problem: without
// metadata.continuation the continuation is problem.answer.
// The prediction is the task's answer line (`A:<prediction>`, trimmed). Deviations: RPT's prompt asks
// for a `\boxed{}` prediction after a <think> block; here the project's uniform `A:` line.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Problem } from '../core/problem.ts';
import type { Reward, RewardResult } from '../core/reward.ts';
import { extractAnswerLine } from '../tasks/task.ts';
import { defineReward } from './registry.ts';

const optionsSchema = z.strictObject({
  /** 'prefix': RPT's prefix match at a word boundary; 'exact': only the single next word. */
  match: z.enum(['prefix', 'exact']).default('prefix'),
});

/** The continuation a prediction is matched against. */
export function continuationOf(problem: Problem): string {
  const continuation = problem.metadata?.continuation;
  return typeof continuation === 'string' && continuation.startsWith(problem.answer)
    ? continuation
    : problem.answer;
}

/** Character lengths at which a word of `text` ends (the valid token boundaries of RPT's reward). */
export function wordBoundaries(text: string): Set<number> {
  const ends = new Set<number>();
  for (const match of text.matchAll(/\S+/g)) ends.add((match.index ?? 0) + match[0].length);
  return ends;
}

export function createNextTokenReward(options: unknown): Reward {
  const { match } = parseConfig(optionsSchema, options ?? {}, "reward 'next-token' options");
  return {
    name: 'next-token',
    async score(inputs) {
      return inputs.map(({ problem, completion }): RewardResult => {
        const predicted = extractAnswerLine(completion);
        if (predicted === null)
          return {
            reward: 0,
            components: { correct: 0, answered: 0 },
            reason: 'no answer line (A:...) found',
          };
        const continuation = continuationOf(problem);
        const correct =
          match === 'exact'
            ? predicted === problem.answer
            : continuation.startsWith(predicted) && wordBoundaries(continuation).has(predicted.length);
        const result: RewardResult = {
          reward: correct ? 1 : 0,
          components: { correct: correct ? 1 : 0, answered: 1 },
        };
        if (!correct) result.reason = `prediction '${predicted}' does not match the text`;
        return result;
      });
    },
  };
}

export const nextTokenReward = defineReward({
  id: 'next-token',
  description:
    'RPT: 1 when the predicted continuation is a prefix of the true one ending on a token boundary',
  paper: { title: 'Reinforcement Pre-Training', arxiv: '2506.08007' },
  optionsSchema: optionsSchema,
  create: createNextTokenReward,
});
