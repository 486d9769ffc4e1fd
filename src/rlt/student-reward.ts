// The RLT reward as a `Reward` of the RL loop (`curricula teach`): each completion of the teacher is an
// explanation; the frozen student scores the reference solution after it. One batched `forward` of the
// student over every [question + explanation + delimiter + solution] of the step, one batched `forward`
// of the teacher over its own [prompt + explanation], then the pure reward (reward.ts) per completion.
//
// Like the authors (SakanaAI/RLT trainers/teacher_rewards.py, compute_batch_log_probs on the teacher
// model), τ is recomputed by a teacher forward rather than taken from the sampler. Deviations:
// - Both forwards are at temperature 1 (the PolicyBackend's `forward` has no temperature); the authors
//   score the student at 0.7 (unbias_student_log_probs_temp) and the teacher at its generation
//   temperature (unbias_teacher_log_probs). Both are at the same temperature here, so k_t still compares
//   like with like.
// - The explanation's closing tag is EOS (template.ts): a completion of as many tokens as the sampler's
//   limit for this prompt (min(rollout.maxTokens, context − prompt), as rollout.ts computes it) was cut
//   without EOS and gets the format penalty; its text is still scored, as the authors append the missing
//   `</think>` and score it. With `rlt.template.explanationEnd: answer-line` the closing tag is the
//   teacher's own answer line instead: the explanation is the text before it (what the student reads and
//   the KL compares), and a completion without one misses the format.
// A completion the student cannot score (too long for its context) throws; the RL loop (rollout.ts) then
// scores the batch item by item and gives only the failing ones reward 0, counted as reward/errors.
import type { PolicyBackend } from '../core/policy.ts';
import type { Reward, RewardInput, RewardResult } from '../core/reward.ts';
import { promptTokens } from '../tasks/format.ts';
import { type RltRewardOptions, rltReward } from './reward.ts';
import {
  explanationOf,
  type RltTemplateParts,
  type StudentSequence,
  spanLogprobs,
  studentSequence,
  teacherPromptText,
} from './template.ts';

export interface RltRewardDeps {
  /** The policy being trained (scores its own explanations: τ). */
  teacher: PolicyBackend;
  /** The frozen student (ℓ and s). */
  student: PolicyBackend;
  template: RltTemplateParts;
  options: RltRewardOptions;
  /** rollout.maxTokens: with the teacher's context, the sampler's limit per prompt. */
  maxTokens: number;
}

interface Prepared {
  teacherPrompt: number[];
  explanation: number[];
  formatMatched: boolean;
  limit: number;
  student: StudentSequence;
}

export function createRltReward(deps: RltRewardDeps): Reward {
  const { teacher, student, template, options, maxTokens } = deps;

  const prepare = (input: RewardInput): Prepared => {
    const { problem } = input;
    const teacherPrompt = promptTokens(teacher.tokenizer, {
      ...problem,
      prompt: teacherPromptText(template, problem),
    });
    // rlt.template.explanationEnd: the whole completion (closed by EOS), or the part before its answer line
    const cut = explanationOf(template, input.completion);
    const explanation = teacher.tokenizer.encode(cut.text, `problem ${problem.id} explanation`);
    // rollout.ts: each attempt samples at most min(maxTokens, context − prompt) tokens, EOS included.
    const limit = Math.max(1, Math.min(maxTokens, teacher.contextLength - teacherPrompt.length));
    const sequence = studentSequence(student.tokenizer, template, problem, explanation);
    if (sequence.tokens.length > student.contextLength) {
      throw new RangeError(
        `problem ${problem.id}: the student's context (${sequence.tokens.length} tokens) exceeds its context length ${student.contextLength}`,
      );
    }
    return {
      teacherPrompt,
      explanation,
      formatMatched: cut.closed ?? explanation.length < limit,
      limit,
      student: sequence,
    };
  };

  return {
    name: 'rlt',
    async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
      const prepared = inputs.map(prepare);
      // [item][L − 1] each.
      const studentLogprobs = await student.forward(prepared.map((item) => item.student.tokens));
      const teacherLogprobs = await teacher.forward(
        prepared.map((item) => [...item.teacherPrompt, ...item.explanation]),
      );
      return prepared.map((item, index) => {
        const explanationSpan = {
          start: item.teacherPrompt.length,
          end: item.teacherPrompt.length + item.explanation.length,
        };
        const parts = rltReward(
          {
            solutionLogprobs: spanLogprobs(studentLogprobs[index], item.student.solution),
            studentExplanationLogprobs: spanLogprobs(studentLogprobs[index], item.student.explanation),
            teacherExplanationLogprobs: spanLogprobs(teacherLogprobs[index], explanationSpan),
            formatMatched: item.formatMatched,
          },
          options,
        );
        return {
          reward: parts.reward,
          components: {
            r_ss: parts.rSs,
            r_kl: parts.rKl,
            format_miss: item.formatMatched ? 0 : 1,
            solution_logprob: parts.meanLogProb,
            kl: parts.meanKl,
          },
          ...(item.formatMatched
            ? {}
            : {
                reason:
                  template.explanationEnd === 'answer-line'
                    ? 'explanation not closed (no answer line after it)'
                    : `explanation not closed (no EOS within ${item.limit} tokens)`,
              }),
        };
      });
    },
  };
}
