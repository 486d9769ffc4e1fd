// The `format` reward: does the completion have the expected structure? `pass` (default 1) when it does,
// `fail` (default 0) otherwise, with a reason naming what is missing or misplaced.
//
// Patterns:
// - 'think-answer' (default): `<think>…</think><answer>…</answer>`, the DeepSeek-R1 / TinyZero convention
//   ("DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning", arXiv 2501.12948).
//   The whole completion must be the two blocks, with only whitespace around and between them.
//   Deviation: open-r1's format reward uses `^<think>\n.*?\n</think>\n<answer>\n.*?\n</answer>$` with
//   re.MULTILINE, which demands newlines inside the tags and lets text follow on later lines; here any
//   whitespace is accepted and nothing may follow `</answer>`. `prefilledThink: true` drops the `<think>`
//   requirement for chat templates that put it in the prompt (R1's template does).
// - 'rlcr': RLCR's `tabc` format (`…</think><answer>…</answer><analysis>…</analysis><confidence>q</confidence>`
//   with q a number in [0, 1]), exactly as the `calibration` reward checks it (see calibration.ts).
// - 'answer-line': the synthetic tasks' convention: a line starting with `A:` and a non-empty answer
//   (src/tasks/task.ts, extractAnswerLine).
// - 'regex': a user regex (`regex`, JavaScript syntax, `flags` from 'imsu'); it must match somewhere in the
//   completion, so anchor it with ^…$ to demand a full match.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Reward, RewardResult } from '../core/reward.ts';
import { answerPrefix, extractAnswerLine } from '../tasks/task.ts';
import { parseRlcrOutput } from './calibration.ts';
import { defineReward } from './registry.ts';
import { tagSequenceProblem } from './tags.ts';

const optionsSchema = z.strictObject({
  /** Which structure to check; a given `regex` implies 'regex'. */
  pattern: z.enum(['think-answer', 'rlcr', 'answer-line', 'regex']).optional(),
  /** JavaScript regular expression for pattern 'regex' (matched anywhere; anchor it for a full match). */
  regex: z.string().min(1).optional(),
  /** Regex flags, any of 'imsu' ('g' and 'y' would make matching stateful). */
  flags: z
    .string()
    .regex(/^[imsu]*$/, "flags may only contain 'i', 'm', 's', 'u'")
    .default(''),
  /** 'think-answer' only: the prompt already ends with <think>, so the completion starts inside it. */
  prefilledThink: z.boolean().default(false),
  /** Reward when the structure is right. */
  pass: z.number().default(1),
  /** Reward when it is not. */
  fail: z.number().default(0),
});

export type FormatOptions = z.input<typeof optionsSchema>;

/** The R1 / TinyZero structure as one regex (the decision); `tagSequenceProblem` explains a failure. */
const THINK_ANSWER = /^\s*<think>[\s\S]*?<\/think>\s*<answer>[\s\S]*?<\/answer>\s*$/;
const THINK_ANSWER_PREFILLED = /^[\s\S]*?<\/think>\s*<answer>[\s\S]*?<\/answer>\s*$/;

/** null when the completion is `<think>…</think><answer>…</answer>`, else what is wrong. */
export function thinkAnswerProblem(completion: string, prefilledThink = false): string | null {
  const regex = prefilledThink ? THINK_ANSWER_PREFILLED : THINK_ANSWER;
  if (regex.test(completion)) return null;
  return (
    tagSequenceProblem(completion, ['think', 'answer'], !prefilledThink) ??
    'not <think>…</think><answer>…</answer>'
  );
}

function compileRegex(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new ConfigError(`reward 'format' options: regex: ${(error as Error).message}`);
  }
}

export function createFormatReward(options: unknown): Reward {
  const parsed = parseConfig(optionsSchema, options ?? {}, "reward 'format' options");
  const pattern = parsed.pattern ?? (parsed.regex !== undefined ? 'regex' : 'think-answer');
  if (pattern === 'regex' && parsed.regex === undefined) {
    throw new ConfigError("reward 'format' options: pattern 'regex' needs a 'regex' option");
  }
  if (pattern !== 'regex' && parsed.regex !== undefined) {
    throw new ConfigError(
      `reward 'format' options: 'regex' is only used with pattern 'regex', not '${pattern}'`,
    );
  }
  const regex = pattern === 'regex' ? compileRegex(parsed.regex as string, parsed.flags) : null;

  const problemOf = (completion: string): string | null => {
    switch (pattern) {
      case 'think-answer':
        return thinkAnswerProblem(completion, parsed.prefilledThink);
      case 'rlcr':
        return parseRlcrOutput(completion).problem;
      case 'answer-line':
        return extractAnswerLine(completion) === null
          ? `no answer line (${answerPrefix}<answer>) found`
          : null;
      default:
        return (regex as RegExp).test(completion) ? null : `does not match /${regex?.source}/${parsed.flags}`;
    }
  };

  return {
    name: 'format',
    async score(inputs) {
      return inputs.map(({ completion }): RewardResult => {
        const problem = problemOf(completion);
        return problem === null
          ? { reward: parsed.pass, components: { format: 1 } }
          : { reward: parsed.fail, components: { format: 0 }, reason: `format: ${problem}` };
      });
    },
  };
}

export const formatReward = defineReward({
  id: 'format',
  description:
    'does the completion have the expected structure (<think>…</think><answer>…</answer>, or an answer line)',
  paper: {
    title: 'DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning',
    arxiv: '2501.12948',
  },
  optionsSchema: optionsSchema,
  create: createFormatReward,
});
