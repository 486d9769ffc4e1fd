// The `next-segment` reward (RLPT): the model reasons, then predicts the next segment of the text; reward 1
// when the prediction matches it. Paper: "Reinforcement Learning on Pre-Training Data" (RLPT, Tencent
// Hunyuan, arXiv 2509.19249, digest ¶16): next-segment reasoning over sentences of unlabelled text.
// The paper grades with a generative reward model that judges whether the prediction is semantically
// consistent with the ground-truth segment (a prefix-lenient judgement). Built here: exact match after
// normalisation (trim, whitespace runs collapsed to one space; `caseSensitive: false` also lower-cases);
// `grader: judge` also asks a judge policy about predictions that are not exact matches
// (next-segment-judge.ts: the trained policy as the judge, RL training only). Components: correct,
// answered, exact (the normalised match), judged (the judge was asked). The authors' code was not found through `search`, so no default comes from code.
// Segment = a line of the file (src/tasks/text-corpus.ts, difficulty 2), not a sentence: the shipped
// corpus has one sentence or one solution step per line.
// The prediction is the task's answer line (`A:<prediction>`, trimmed).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Reward, RewardContext, RewardResult } from '../core/reward.ts';
import { extractAnswerLine } from '../tasks/task.ts';
import { createSegmentJudge, judgeOptionsSchema } from './next-segment-judge.ts';
import { defineReward } from './registry.ts';

const optionsSchema = z.strictObject({
  /** Compare letters with their case (default) or case-folded. */
  caseSensitive: z.boolean().default(true),
  /** 'exact': normalised exact match; 'judge': and, when that fails, a judge policy's yes. */
  grader: z.enum(['exact', 'judge']).default('exact'),
  /** The judge's prompt and sampling (grader 'judge'). */
  judge: judgeOptionsSchema.default(judgeOptionsSchema.parse({})),
});

/** Trimmed, with every whitespace run collapsed to one space (and lower-cased unless case-sensitive). */
export function normaliseSegment(text: string, caseSensitive = true): string {
  const collapsed = text.trim().replace(/\s+/g, ' ');
  return caseSensitive ? collapsed : collapsed.toLowerCase();
}

export function createNextSegmentReward(options: unknown, context?: RewardContext): Reward {
  const parsed = parseConfig(optionsSchema, options ?? {}, "reward 'next-segment' options");
  const { caseSensitive } = parsed;
  const judge = parsed.grader === 'judge' ? createSegmentJudge(parsed.judge, context) : null;
  return {
    name: 'next-segment',
    usesPolicy: judge !== null,
    async score(inputs) {
      return Promise.all(
        inputs.map(async ({ problem, completion, step }): Promise<RewardResult> => {
          const predicted = extractAnswerLine(completion);
          if (predicted === null)
            return {
              reward: 0,
              components: { correct: 0, answered: 0 },
              reason: 'no answer line (A:...) found',
            };
          const exact =
            normaliseSegment(predicted, caseSensitive) === normaliseSegment(problem.answer, caseSensitive);
          const components: Record<string, number> = {
            correct: exact ? 1 : 0,
            answered: 1,
            exact: exact ? 1 : 0,
          };
          if (exact || judge === null) {
            const result: RewardResult = { reward: exact ? 1 : 0, components };
            if (!exact) result.reason = 'the predicted segment differs from the text';
            return result;
          }
          const verdict = await judge.judge(problem, predicted, step ?? 0);
          components.judged = 1;
          components.correct = verdict.yes ? 1 : 0;
          const result: RewardResult = { reward: verdict.yes ? 1 : 0, components };
          if (!verdict.yes) result.reason = verdict.reason ?? 'the judge said no';
          return result;
        }),
      );
    },
  };
}

export const nextSegmentReward = defineReward({
  id: 'next-segment',
  description: 'RLPT: 1 when the predicted next segment of the text matches it (normalised exact match)',
  paper: { title: 'Reinforcement Learning on Pre-Training Data', arxiv: '2509.19249' },
  optionsSchema: optionsSchema,
  create: createNextSegmentReward,
});
