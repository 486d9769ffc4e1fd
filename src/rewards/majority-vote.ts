// The `majority-vote` reward (TTRL): for unlabelled problems, the answer most of the group gives is taken as
// the pseudo-label ŷ, and a completion earns 1 when its answer agrees with ŷ, else 0. Paper: "TTRL:
// Test-Time Reinforcement Learning" (Zuo et al., arXiv 2504.16084); authors' code: PRIME-RL/TTRL
// verl/verl/trainer/ppo/ttrl_utils.py (_majority_vote, apply_ttrl_gt, _prompt_compute_ttrl_metrics), read.
//
// Per problem, over `input.group` (all N completions sampled for it, this one included):
// 1. extract each answer: 'math' answers with math-answer's extractor and cluster key (mathAnswerKey:
//    normalised LaTeX; the authors use extract_answer + simplify_expression_string), 'verifier' answers with
//    the task's own `A:` line extractor (trimmed text). A completion without an answer abstains.
// 2. ŷ = the most common key (Counter.most_common: on a tie the key seen first wins, as in
//    src/rewards/answer-vote.ts); majority_ratio = votes(ŷ) / N, N counting abstentions too. No answer at all:
//    the authors' label is the string "None", which no answer grades equal to: every reward is 0.
// 3. reward_i = 1 iff answer_i grades equal to ŷ (the authors swap the ground truth for ŷ and run their
//    grader): same key, or, for math, mathEquivalent(ŷ, answer_i) (so `\frac12` earns 1 when ŷ is `0.5`
//    even though the two keys voted apart, as with the authors' Counter over strings then grade()).
// 4. label_accuracy (the authors' hit rate) = 1 when ŷ is correct for `problem.answer`, reported only when
//    a gold answer exists (non-empty); it is a diagnostic and never enters the reward.
// Downsampling N → n (the authors vote over N = n_votes_per_prompt and train on the first
// n_samples_per_prompt; configs of TTRL forks use N = 64, n = 32) is the trainer's job: the reward votes over
// whatever group it is given, and `selectFirstPerGroup` below is the authors' select_top_k_per_prompt.
// Deviations: the cluster key is ours (mathAnswerKey), not simplify_expression_string; 'auto' picks the
// task verifier's extractor for synthetic tasks (problem.task in the task registry) and math otherwise.
// Unverified: the N = 64 / n = 32 defaults (seen in forks' configs, not in the authors' scripts); what the
// authors' extract_answer (verl/utils/reward_score/ttrl_math, not read) accepts besides the last \boxed{}:
// here math answers come from math-answer's extractor with its fallbacks ('final answer is', a bare
// answer, the last number) unless `math: { boxedOnly: true }`.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { UserError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { Reward, RewardInput, RewardResult } from '../core/reward.ts';
import { tasks } from '../tasks/index.ts';
import { answerPrefix } from '../tasks/task.ts';
import { majorityVote } from './answer-vote.ts';
import { extractAnswer } from './math-answer/extract.ts';
import { MathVerifier, mathAnswerKey, parseMathAnswerOptions } from './math-answer/reward.ts';
import { defineReward } from './registry.ts';

const optionsSchema = z.strictObject({
  /** How answers are extracted and compared: math-answer, the task verifier, or per problem ('auto'). */
  answers: z.enum(['auto', 'math', 'verifier']).default('auto'),
  /** Reward for agreeing with the majority. */
  agree: z.number().default(1),
  /** Reward for disagreeing or abstaining. */
  disagree: z.number().default(0),
  /** math-answer options for extraction and equivalence (relTol, timeoutMs, poolSize, boxedOnly). */
  math: z.record(z.string(), z.unknown()).optional(),
});

export type MajorityVoteOptions = z.input<typeof optionsSchema>;

interface GroupVote {
  /** The winning key, or null when no completion had an answer. */
  label: string | null;
  /** The raw answer text of the winner's earliest sample. */
  labelText: string | null;
  votes: number;
  size: number;
  /** Key of each distinct answer → agrees with the label. */
  agrees: Map<string, boolean>;
  /** 1/0 when the problem has a gold answer. */
  labelCorrect: number | null;
}

interface Answer {
  key: string;
  text: string;
}

/** TTRL's select_top_k_per_prompt: of consecutive groups of `votes` items, keep the first `samples` of each. */
export function selectFirstPerGroup<T>(items: readonly T[], votes: number, samples: number): T[] {
  if (!Number.isInteger(votes) || votes < 1 || items.length % votes !== 0) {
    throw new RangeError(`selectFirstPerGroup: ${items.length} items are not groups of ${votes}`);
  }
  if (!Number.isInteger(samples) || samples < 1 || samples > votes) {
    throw new RangeError(`selectFirstPerGroup: samples must be in [1, ${votes}], got ${samples}`);
  }
  const selected: T[] = [];
  for (let start = 0; start < items.length; start += votes)
    selected.push(...items.slice(start, start + samples));
  return selected;
}

export function createMajorityVoteReward(options: unknown): Reward {
  const parsed = parseConfig(optionsSchema, options ?? {}, "reward 'majority-vote' options");
  // Validated now (ConfigError on bad math options); its worker pool starts on first use.
  const mathOptions = parseMathAnswerOptions(parsed.math ?? {});
  const boxedOnly = mathOptions.boxedOnly;
  let verifier: MathVerifier | null = null;
  const mathVerifier = () => {
    verifier ??= new MathVerifier(mathOptions);
    return verifier;
  };

  const modeOf = (problem: Problem): 'math' | 'verifier' =>
    parsed.answers === 'auto' ? (tasks.has(problem.task) ? 'verifier' : 'math') : parsed.answers;

  const answerOf = (problem: Problem, completion: string, mode: 'math' | 'verifier'): Answer | null => {
    if (mode === 'verifier') {
      const text = tasks.get(problem.task).extractAnswer(completion);
      return text === null ? null : { key: text, text };
    }
    const key = mathAnswerKey(completion, { boxedOnly });
    const extracted = extractAnswer(completion, { boxedOnly });
    return key === null || extracted === null ? null : { key, text: extracted.answer };
  };

  async function vote(problem: Problem, group: readonly string[]): Promise<GroupVote> {
    const mode = modeOf(problem);
    const answers = group.map((completion) => answerOf(problem, completion, mode));
    const winner = majorityVote(answers.map((answer) => answer?.key ?? null));
    const hasGold = problem.answer.trim() !== '';
    const agrees = new Map<string, boolean>();
    if (winner.answer === null) {
      return {
        label: null,
        labelText: null,
        votes: 0,
        size: group.length,
        agrees,
        labelCorrect: hasGold ? 0 : null,
      };
    }
    const label = winner.answer;
    const labelText = (answers[winner.index] as Answer).text;
    const others = new Map<string, string>();
    for (const answer of answers) {
      if (answer !== null && answer.key !== label && !others.has(answer.key))
        others.set(answer.key, answer.text);
    }
    agrees.set(label, true);
    let labelCorrect: number | null = null;
    if (mode === 'verifier') {
      for (const key of others.keys()) agrees.set(key, false);
      if (hasGold)
        labelCorrect = tasks.get(problem.task).verify(problem, `${answerPrefix}${label}`).correct ? 1 : 0;
    } else {
      const math = mathVerifier();
      const keys = [...others.keys()];
      const [equivalent, gold] = await Promise.all([
        Promise.all(keys.map((key) => math.equivalent(labelText, others.get(key) as string))),
        hasGold ? math.equivalent(problem.answer, labelText) : Promise.resolve(null),
      ]);
      for (const [i, key] of keys.entries()) agrees.set(key, equivalent[i]);
      if (gold !== null) labelCorrect = gold ? 1 : 0;
    }
    return { label, labelText, votes: winner.votes, size: group.length, agrees, labelCorrect };
  }

  const reward: Reward = {
    name: 'majority-vote',
    async score(inputs: readonly RewardInput[]) {
      // One vote per group: inputs of the same problem usually share the group array.
      const votes = new Map<string, Promise<GroupVote>>();
      const byReference = new Map<readonly string[], Promise<GroupVote>>();
      const voteFor = (input: RewardInput): Promise<GroupVote> => {
        const group = input.group;
        if (group === undefined || group.length === 0) {
          throw new UserError(
            `reward 'majority-vote' needs the group of completions of problem ${input.problem.id} (input.group)`,
          );
        }
        let pending = byReference.get(group);
        if (pending === undefined) {
          const key = `${input.problem.id}\u0000${group.join('\u0001')}`;
          pending = votes.get(key) ?? vote(input.problem, group);
          votes.set(key, pending);
          byReference.set(group, pending);
        }
        return pending;
      };
      const results = inputs.map(async (input): Promise<RewardResult> => {
        const groupVote = await voteFor(input);
        const mode = modeOf(input.problem);
        const own = answerOf(input.problem, input.completion, mode);
        let agrees = false;
        if (own !== null && groupVote.label !== null) {
          // A completion outside its group (unusual) is graded against the label directly.
          agrees =
            groupVote.agrees.get(own.key) ??
            (mode === 'verifier'
              ? own.key === groupVote.label
              : await mathVerifier().equivalent(groupVote.labelText as string, own.text));
        }
        const components: Record<string, number> = {
          majority: agrees ? 1 : 0,
          majority_ratio: groupVote.votes / groupVote.size,
          answered: own === null ? 0 : 1,
        };
        if (groupVote.labelCorrect !== null) components.label_accuracy = groupVote.labelCorrect;
        const result: RewardResult = { reward: agrees ? parsed.agree : parsed.disagree, components };
        if (groupVote.label === null) result.reason = 'no answer in the group';
        else if (own === null) result.reason = 'no answer';
        else if (!agrees)
          result.reason = `disagrees with the majority (${groupVote.votes}/${groupVote.size} votes)`;
        return result;
      });
      return Promise.all(results);
    },
    async close() {
      await verifier?.close();
      verifier = null;
    },
  };
  return reward;
}

export const majorityVoteReward = defineReward({
  id: 'majority-vote',
  description: "TTRL: the group's majority answer is the pseudo-label; 1 when a completion agrees with it",
  paper: {
    title: 'TTRL: Test-Time Reinforcement Learning',
    arxiv: '2504.16084',
    code: 'PRIME-RL/TTRL verl/verl/trainer/ppo/ttrl_utils.py',
  },
  optionsSchema: optionsSchema,
  create: createMajorityVoteReward,
});
