// The judge-policy grader of `next-segment` (RLPT's generative reward model, arXiv 2509.19249): when the
// predicted segment is not an exact match (after normalisation) of the true one, a policy is asked whether
// the two say the same thing, and its `A:yes` pays 1. RLPT grades with a separate generative reward model
// prompted to decide whether the prediction is semantically consistent with the reference; here the
// judge is the policy being trained (RewardContext.policy, like synthesized-reference), prompted with
// `template` ({prediction}, {reference}, {context} = the problem's prompt), greedy by default
// (temperature 0), one completion per graded item, seed hashed from the option seed, step, problem id and
// prediction (batch-independent draws). Deviations: (1) judge = the trained policy, not a separate and
// stronger reward model (a tiny model's verdicts are noise: use this with a capable policy); (2) the
// verdict is the completion's `A:` line read as yes/no (case-insensitive, "yes"/"y"/"true"), not a
// scored rubric; (3) a judge prompt too long for the context scores 0 with a reason instead of truncating.

import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { RewardContext, RewardPolicy } from '../core/reward.ts';
import { bosPrompt } from '../tasks/format.ts';
import { extractAnswerLine } from '../tasks/task.ts';
import { requirePolicy, seedOf } from './self-policy.ts';

export const judgeOptionsSchema = z.strictObject({
  /** The judge prompt; {prediction}, {reference} and {context} are replaced. Should end with a newline. */
  template: z.string().min(1).default('Same meaning? answer A:yes or A:no\nP:{prediction}\nR:{reference}\n'),
  maxTokens: z.number().int().min(1).default(16),
  temperature: z.number().min(0).default(0),
  topP: z.number().gt(0).max(1).default(1),
  seed: z.number().int().min(0).default(0),
});

export type JudgeOptions = z.output<typeof judgeOptionsSchema>;

export interface JudgeVerdict {
  yes: boolean;
  /** Why the verdict is no, when it is. */
  reason?: string;
}

export interface SegmentJudge {
  judge(problem: Problem, prediction: string, step: number): Promise<JudgeVerdict>;
}

/** The judge prompt's text for one item. */
export function judgePrompt(template: string, problem: Problem, prediction: string): string {
  return template
    .replaceAll('{prediction}', prediction)
    .replaceAll('{reference}', problem.answer)
    .replaceAll('{context}', problem.prompt);
}

/** A verdict read from the judge's completion: its `A:` line says yes. */
export function readVerdict(completion: string): boolean {
  const answer = extractAnswerLine(completion);
  return answer !== null && /^(yes|y|true)\.?$/i.test(answer);
}

export function createSegmentJudge(options: JudgeOptions, context: RewardContext | undefined): SegmentJudge {
  const policy: RewardPolicy = requirePolicy('next-segment (grader judge)', context);
  return {
    async judge(problem, prediction, step) {
      const tokenizer = policy.tokenizer;
      const text = judgePrompt(options.template, problem, prediction);
      let prompt: number[];
      try {
        prompt = bosPrompt(tokenizer, text, `judge prompt of ${problem.id}`);
      } catch (error) {
        return { yes: false, reason: `judge prompt cannot be encoded (${(error as Error).message})` };
      }
      const maxTokens = Math.min(options.maxTokens, policy.contextLength - prompt.length);
      if (maxTokens < 1) {
        return { yes: false, reason: `judge prompt takes ${prompt.length} tokens, no room in the context` };
      }
      const [[sequence]] = await policy.sample([prompt], {
        n: 1,
        temperature: options.temperature,
        topP: options.topP,
        maxTokens,
        seed: seedOf(options.seed, step, problem.id, prediction),
      });
      return readVerdict(sequence.text) ? { yes: true } : { yes: false, reason: 'the judge said no' };
    },
  };
}
