// The `next-segment` reward (RLPT): the model reasons, then predicts the next segment of the text; reward 1
// when the prediction matches it. Paper: "Reinforcement Learning on Pre-Training Data" (RLPT, Tencent
// Hunyuan, arXiv 2509.19249, digest ¶16): next-segment reasoning over sentences of unlabelled text.
// The paper grades with a generative reward model that judges whether the prediction is semantically
// consistent with the ground-truth segment (a prefix-lenient judgement). Built here: exact match after
// normalisation (trim, whitespace runs collapsed to one space; `caseSensitive: false` also lower-cases).
// NOT built: the judge-policy mode (grading by a second policy); a config asking for it is refused by
// the options schema. The authors' code was not found through `search`, so no default comes from code.
// Segment = a line of the file (src/tasks/text-corpus.ts, difficulty 2), not a sentence: the shipped
// corpus has one sentence or one solution step per line.
// The prediction is the task's answer line (`A:<prediction>`, trimmed).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Reward, RewardResult } from '../core/reward.ts';
import { extractAnswerLine } from '../tasks/task.ts';

const optionsSchema = z.strictObject({
  /** Compare letters with their case (default) or case-folded. */
  caseSensitive: z.boolean().default(true),
});

/** Trimmed, with every whitespace run collapsed to one space (and lower-cased unless case-sensitive). */
export function normaliseSegment(text: string, caseSensitive = true): string {
  const collapsed = text.trim().replace(/\s+/g, ' ');
  return caseSensitive ? collapsed : collapsed.toLowerCase();
}

export function createNextSegmentReward(options: unknown): Reward {
  const { caseSensitive } = parseConfig(optionsSchema, options ?? {}, "reward 'next-segment' options");
  return {
    name: 'next-segment',
    async score(inputs) {
      return inputs.map(({ problem, completion }): RewardResult => {
        const predicted = extractAnswerLine(completion);
        if (predicted === null)
          return {
            reward: 0,
            components: { correct: 0, answered: 0 },
            reason: 'no answer line (A:...) found',
          };
        const correct =
          normaliseSegment(predicted, caseSensitive) === normaliseSegment(problem.answer, caseSensitive);
        const result: RewardResult = {
          reward: correct ? 1 : 0,
          components: { correct: correct ? 1 : 0, answered: 1 },
        };
        if (!correct) result.reason = 'the predicted segment differs from the text';
        return result;
      });
    },
  };
}
