// The `synthesized-reference` reward (CaT, Compute as Teacher): per group, the policy is shown the
// problem and the group's rollouts and writes one synthesized reference; each rollout is then graded
// against that reference with the task's own verifier. No gold answer is read.
// Paper: "Compute as Teacher: Turning Inference Compute Into Reference-Free Supervision" (Jayalath et al.,
// arXiv 2509.14234, digest ¶19), verifiable regime: reward = programmatic equivalence of the rollout's final
// answer with the synthesized reference's. The authors' code was searched for (code corpus) and not found:
// the synthesis prompt below paraphrases the paper's description (question, then the parallel rollouts,
// then an instruction to reconcile their omissions and contradictions into one response).
// Grading: for a synthetic task, task.verify(problem with answer := the reference's answer, rollout) (so
// equivalence is the task's: exact for addition/string-compose/modular-chain; countdown's verifier checks
// the target, which is part of the problem, so there CaT equals gold grading); otherwise the rollout's
// answer key (math-answer's normalised key) must equal the reference's.
// Default template: `{prompt}{responses}reconcile:\n`, rollouts listed as `R<i>:\n<text>\n` (`show:
// answers` lists only their answer lines) — short so that it fits the embedded models' 128-token context.
// Deviations: (1) the paper's anchor is the frozen initial policy; here the current policy synthesises (the
// brief's choice: one model, no second backend); (2) rollouts that do not fit the context (after leaving
// maxTokens for the synthesis) are dropped from the prompt, last first; (3) one synthesis per group,
// sampled at this reward's temperature with a seed hashed from the option seed, step and problem;
// (4) the non-verifiable regime (self-proposed rubrics judged by another model) is not implemented.
// A small model never trained on synthesis prompts will often write no answer line: then every rollout of
// the group earns 0 with reason 'no reference answer' (visible as reward/reference_found).
// Diagnostics: reference_found, and self_gold_agreement with the self-verdict "matches the reference".

import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { UserError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { Reward, RewardContext, RewardInput, RewardPolicy, RewardResult } from '../core/reward.ts';
import { bosPrompt } from '../tasks/format.ts';
import { tasks } from '../tasks/index.ts';
import { defineReward } from './registry.ts';
import { answerKey, goldComponents, requirePolicy, seedOf } from './self-policy.ts';

/** Short on purpose: the embedded models have a 128-token context (a chat model can take a longer one). */
export const defaultSynthesisTemplate = '{prompt}{responses}reconcile:\n';

const optionsSchema = z.strictObject({
  /** The synthesis prompt: {prompt} is the problem's prompt, {responses} the numbered rollouts. */
  template: z
    .string()
    .refine((text) => text.includes('{prompt}') && text.includes('{responses}'), {
      message: 'must contain {prompt} and {responses}',
    })
    .default(defaultSynthesisTemplate),
  temperature: z.number().positive().default(1),
  topP: z.number().gt(0).max(1).default(1),
  /** What of each rollout the prompt shows: the whole text (the paper) or only its answer line. */
  show: z.enum(['full', 'answers']).default('full'),
  /** Most tokens of the synthesized reference. */
  maxTokens: z.number().int().min(1).default(64),
  seed: z.number().int().min(0).default(0),
});

export type SynthesizedReferenceOptions = z.input<typeof optionsSchema>;

/** The synthesis prompt text for `responses` (all of them; the caller drops what does not fit). */
export function synthesisPrompt(
  template: string,
  problem: Problem,
  responses: readonly string[],
  show: 'full' | 'answers' = 'full',
): string {
  const listed = responses
    .map((text, i) => {
      const shown = show === 'full' ? text : `A:${answerKey(problem, text) ?? ''}`;
      return `R${i + 1}:\n${shown}\n`;
    })
    .join('');
  return template.replace('{prompt}', problem.prompt).replace('{responses}', listed);
}

interface Reference {
  text: string;
  answer: string | null;
  /** Rollouts shown to the policy. */
  shown: number;
}

/** Samples the group's reference from the policy, dropping rollouts until the prompt fits. */
async function synthesize(
  policy: RewardPolicy,
  options: z.output<typeof optionsSchema>,
  problem: Problem,
  group: readonly string[],
  step: number,
): Promise<Reference> {
  const tokenizer = policy.tokenizer;
  const room = Math.max(1, policy.contextLength - options.maxTokens);
  let shown = group.length;
  let prompt: number[];
  for (;;) {
    const text = synthesisPrompt(options.template, problem, group.slice(0, shown), options.show);
    prompt = bosPrompt(tokenizer, text, `synthesis prompt of ${problem.id}`);
    if (prompt.length <= room || shown === 0) break;
    shown--;
  }
  if (prompt.length >= policy.contextLength) {
    throw new UserError(
      `reward 'synthesized-reference': the synthesis prompt of ${problem.id} takes ${prompt.length} tokens even without rollouts, and the policy's context is ${policy.contextLength}; shorten options.template`,
    );
  }
  const maxTokens = Math.max(1, Math.min(options.maxTokens, policy.contextLength - prompt.length));
  const [[sequence]] = await policy.sample([prompt], {
    n: 1,
    temperature: options.temperature,
    topP: options.topP,
    maxTokens,
    seed: seedOf(options.seed, step, problem.id),
  });
  return { text: sequence.text, answer: answerKey(problem, sequence.text), shown };
}

/** Does the rollout's answer match the reference answer, by the task's verifier when there is one? */
export function matchesReference(problem: Problem, completion: string, reference: string): boolean {
  if (tasks.has(problem.task)) {
    return tasks.get(problem.task).verify({ ...problem, answer: reference }, completion).correct;
  }
  return answerKey(problem, completion) === reference;
}

export function createSynthesizedReferenceReward(options: unknown, context?: RewardContext): Reward {
  const parsed = parseConfig(optionsSchema, options ?? {}, "reward 'synthesized-reference' options");
  const policy = requirePolicy('synthesized-reference', context);

  return {
    name: 'synthesized-reference',
    usesPolicy: true,
    async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
      const references = new Map<readonly string[], Promise<Reference>>();
      return Promise.all(
        inputs.map(async (input): Promise<RewardResult> => {
          const group = input.group;
          if (group === undefined || group.length === 0) {
            throw new UserError(
              `reward 'synthesized-reference' needs the group of completions of problem ${input.problem.id} (input.group)`,
            );
          }
          let pending = references.get(group);
          if (pending === undefined) {
            pending = synthesize(policy, parsed, input.problem, group, input.step ?? 0);
            references.set(group, pending);
          }
          const reference = await pending;
          const matches =
            reference.answer !== null && matchesReference(input.problem, input.completion, reference.answer);
          const result: RewardResult = {
            reward: matches ? 1 : 0,
            components: {
              reference_found: reference.answer === null ? 0 : 1,
              rollouts_shown: reference.shown,
              ...goldComponents(input.problem, input.completion, matches),
            },
          };
          if (reference.answer === null) result.reason = 'no reference answer';
          else if (!matches) result.reason = 'does not match the synthesized reference';
          return result;
        }),
      );
    },
  };
}

export const synthesizedReferenceReward = defineReward({
  id: 'synthesized-reference',
  description: "CaT: the policy synthesizes a reference from the group's rollouts; each is graded against it",
  paper: {
    title: 'Compute as Teacher: Turning Inference Compute Into Reference-Free Supervision',
    arxiv: '2509.14234',
  },
  optionsSchema: optionsSchema,
  create: createSynthesizedReferenceReward,
});
