// What every judge reward shares: the judge client, the fields a prompt template may use, the call per
// completion with its verdict parsed, and the failure policy (issue 31 items 1 and 4). A reward family
// (rubric.ts, checklist.ts, score.ts, …) supplies the prompt and the verdict; this file turns a failed call
// or a malformed verdict into reward 0 with `error`, `failure: {kind: 'judge', policy}` and the reason,
// never into a silent 0. The RL loop counts them (reward/judge_failures) and applies the policy
// (algorithms/advantages/unscored.ts); the reasons are stored with the run like every reward error.
//
// Components of every judged result: judge_failed (0/1), judge_cached (1 when the verdict came from the
// cache), judge_prompt_tokens and judge_completion_tokens (the call's usage; 0 for a cached verdict).
import { join } from 'node:path';
import type { Reward, RewardContext, RewardInput, RewardResult } from '../../core/reward.ts';
import { tasks } from '../../tasks/index.ts';
import { type JudgeAnswer, JudgeClient, type JudgeTransport } from './client.ts';
import type { FailurePolicy, JudgeEndpointOptions } from './options.ts';
import { PolicyJudge, policyJudge } from './policy-judge.ts';
import { fence, type JudgeTemplate } from './template.ts';
import type { Parsed } from './verdict.ts';

/**
 * The fields any judge template may use; a family adds its own (criteria, checklist, …). `extracted` is the
 * completion's final answer as its task reads it (the synthetic tasks' last `A:` line; '' when there is
 * none or the task is not registered): a judge that should see only the answer, not the reasoning
 * (verifiers' `view: last_reply` in spirit), or a small embedded judge with a short context.
 */
export const baseFields = ['prompt', 'completion', 'answer', 'extracted'] as const;

/** The base fields of one input: the completion is fenced (template.ts), the others are as given. */
export function baseValues(input: RewardInput): Record<(typeof baseFields)[number], string> {
  return {
    prompt: input.problem.prompt,
    completion: fence(input.completion),
    answer: input.problem.answer,
    extracted: extractedAnswer(input),
  };
}

function extractedAnswer({ problem, completion }: RewardInput): string {
  if (!tasks.has(problem.task)) return '';
  return tasks.get(problem.task).extractAnswer(completion) ?? '';
}

/** A family's verdict on one completion. */
export interface JudgedScore {
  reward: number;
  components: Record<string, number>;
  reason?: string;
}

/** A verdict that parsed: the reward and its components. */
export function judgedScore(reward: number, components: Record<string, number>): Parsed<JudgedScore> {
  return { ok: true, value: { reward, components } };
}

/** One family: the prompts for an input (one per call) and the verdict from their replies. */
export interface JudgeFamily {
  readonly name: string;
  prompts(input: RewardInput): string[];
  verdict(replies: readonly JudgeAnswer[], input: RewardInput): Parsed<JudgedScore>;
  /** Ask for the top log-probabilities of each reply token (verdict probabilities). */
  readonly topLogprobs?: number;
}

export const JUDGE_CACHE_FILE = 'judge-cache.sqlite';

/** What a judge reward's factory may be given: the reward context (the policy) and, in tests, a `fetch`. */
export interface JudgeInject {
  fetch?: typeof fetch;
  context?: RewardContext;
}

/** The judge transport of a reward's options: the policy (`endpoint: policy`) or an HTTP client. */
export function judgeTransport(
  reward: string,
  options: JudgeEndpointOptions,
  inject: JudgeInject = {},
): JudgeTransport {
  if (options.endpoint === 'policy') return policyJudge(reward, options, inject.context);
  return new JudgeClient(options, inject);
}

/** A reward that asks `family`'s prompts of the judge behind `client` for every input. */
export function judgeReward(family: JudgeFamily, client: JudgeTransport, onFailure: FailurePolicy): Reward {
  const judgeOne = async (input: RewardInput): Promise<RewardResult> => {
    let answers: JudgeAnswer[];
    const prompts = family.prompts(input);
    try {
      answers = await Promise.all(
        prompts.map((prompt) => client.ask(prompt, { topLogprobs: family.topLogprobs })),
      );
    } catch (error) {
      return judgeFailed(`judge call failed: ${(error as Error).message}`, onFailure, []);
    }
    const verdict = family.verdict(answers, input);
    if (!verdict.ok) return judgeFailed(`judge verdict malformed: ${verdict.why}`, onFailure, answers);
    for (const [i, prompt] of prompts.entries()) client.remember(prompt, answers[i], family.topLogprobs);
    return {
      reward: verdict.value.reward,
      components: { ...verdict.value.components, ...usageComponents(answers), judge_failed: 0 },
      ...(verdict.value.reason ? { reason: verdict.value.reason } : {}),
    };
  };
  return judgeRewardShell(family.name, client, (inputs) => Promise.all(inputs.map(judgeOne)));
}

/** A judge reward around its scoring function: the flags, the verdict cache's file and the release. */
export function judgeRewardShell(name: string, client: JudgeTransport, score: Reward['score']): Reward {
  return {
    name,
    usesJudge: true,
    // a self-judge calls the policy: the RL loop binds it before the first step (self-policy.ts)
    usesPolicy: client instanceof PolicyJudge,
    score,
    useRunDirectory: (dir) => client.useCacheFile(join(dir, JUDGE_CACHE_FILE)),
    close: async () => client.close(),
  };
}

export function usageComponents(answers: readonly JudgeAnswer[]): Record<string, number> {
  return {
    judge_cached: answers.length > 0 && answers.every((answer) => answer.cached) ? 1 : 0,
    judge_prompt_tokens: answers.reduce((sum, a) => sum + (a.cached ? 0 : (a.usage?.promptTokens ?? 0)), 0),
    judge_completion_tokens: answers.reduce(
      (sum, a) => sum + (a.cached ? 0 : (a.usage?.completionTokens ?? 0)),
      0,
    ),
  };
}

export function judgeFailed(
  reason: string,
  policy: FailurePolicy,
  answers: readonly JudgeAnswer[],
): RewardResult {
  return {
    reward: 0,
    components: { ...usageComponents(answers), judge_failed: 1 },
    reason: reason.length > 300 ? `${reason.slice(0, 297)}...` : reason,
    error: true,
    failure: { kind: 'judge', policy },
  };
}

/** A template rendered with the base fields of `input` and the family's own. */
export function renderFor(
  template: JudgeTemplate,
  input: RewardInput,
  extra: Record<string, string> = {},
): string {
  return template.render({ ...baseValues(input), ...extra });
}
