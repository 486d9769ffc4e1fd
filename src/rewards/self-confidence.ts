// The `self-confidence` reward (RLSC): the model's own confidence is the reward; no gold answer is read.
// Paper: "Confidence Is All You Need: Few-Shot RL Fine-Tuning of Language Models" (Li et al., arXiv
// 2506.06395, digest ¶63). Its objective is the self-confidence F = E_{y~p_θ}[p_θ(y|x)] (maximal when the
// distribution collapses onto its mode); with samples y_1..y_N from the frozen old policy the loss is
//   L = −Σ_i (p_old(y_i|x) + α) · log p_θ(y_i|x),   α = 0.1 (the paper's smoothing term).
// That is REINFORCE with reward p_old(y_i|x) + α, which is what `form: 'sequence'` (default) returns:
// p_old(y|x) = exp(Σ_t log p(token_t)) of the completion under the policy at temperature 1, from one
// `forward` call per group (the weights are the sampling weights: rewards are computed before the update).
// `form: 'answer'` is the answer-level statistic the issue names ("the mode probability of the model's
// own answers"): p̂(a_i) = (completions of the group whose answer equals a_i) / N, N counting completions
// without an answer (which earn 0); it needs no policy.
// Sources: the paper's abstract in the digest and its text as recalled; the authors' code was searched for
// (code, docs and issues corpora) and not found, so no default comes from code.
// Deviations: (1) the loop's advantage estimator still applies and none passes raw rewards through: the
// paper's loss has no baseline, so there α works as plain SFT on the model's own samples, while under any
// group baseline (grpo, dr-grpo, rloo) α cancels and only the differences of p_old between samples train
// (GRPO also divides by their std); the exact loss would need a raw-reward estimator; (2) p_old is
// computed from the completion text re-encoded after the prompt (exact for the character tokenizer; a
// BPE tokenizer may split differently), followed by the EOS token (option `eos`, default true: p(y|x) of
// a finished response), and a forced prefix (guidance) counts as part of the completion. The text does
// not say whether sampling stopped at EOS or at the length limit, so a cut completion is scored as if it
// ended there. `eos: false` (the first version's computation) leaves EOS out, and then the EMPTY
// completion has p = exp(0) = 1, the largest reward there is: on the ladder every run with it collapsed
// to empty completions (experiments/self-rewards); (3) the paper samples 16 per question for 10-20 steps: that
// is the run config's choice (rollout.groupSize, train.steps).
// Diagnostics (never in the reward): `confidence` (p or p̂), and, when a gold answer exists,
// confidence_brier ((confidence − gold)², whose step mean is the Brier score), self_gold_agreement and
// confident_wrong, where the self-verdict is "this completion's answer is the group's most confident
// answer" (largest summed p, or the mode for 'answer'); self-policy.ts.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { UserError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { Reward, RewardContext, RewardInput, RewardPolicy, RewardResult } from '../core/reward.ts';
import { promptTokens } from '../tasks/format.ts';
import { defineReward } from './registry.ts';
import { answerKey, goldComponents, requirePolicy } from './self-policy.ts';

const optionsSchema = z.strictObject({
  /** 'sequence': RLSC's p_old(y|x) + α (needs the policy); 'answer': share of the group with the same answer. */
  form: z.enum(['sequence', 'answer']).default('sequence'),
  /** RLSC's smoothing term α, added to p_old (form 'sequence' only). */
  alpha: z.number().min(0).default(0.1),
  /**
   * Include the EOS token in p(y|x) (form 'sequence'). false reproduces the first version, under which an
   * empty completion scores p = 1: a reward hack the ladder runs found (see the header).
   */
  eos: z.boolean().default(true),
});

export type SelfConfidenceOptions = z.input<typeof optionsSchema>;

interface GroupConfidence {
  /** Confidence of each completion of the group, in group order. */
  confidence: number[];
  /** The answer with the largest summed confidence (null when no completion has an answer). */
  label: string | null;
  keys: (string | null)[];
}

/** p(y|x) of each completion: exp of the summed log-probs of its tokens (then of EOS, with `eos`) after the prompt. */
async function sequenceProbabilities(
  policy: RewardPolicy,
  problem: Problem,
  completions: readonly string[],
  eos: boolean,
): Promise<number[]> {
  const tokenizer = policy.tokenizer;
  const prompt = promptTokens(tokenizer, problem);
  const sequences = completions.map((completion) => [
    ...prompt,
    ...tokenizer.encode(completion, `completion of ${problem.id}`),
    ...(eos ? [tokenizer.eos] : []),
  ]);
  const logprobs = await (policy.forward as (s: number[][]) => Promise<number[][]>)(sequences);
  return logprobs.map((row) => Math.exp(row.slice(prompt.length - 1).reduce((sum, value) => sum + value, 0)));
}

function labelOf(keys: readonly (string | null)[], confidence: readonly number[]): string | null {
  const mass = new Map<string, number>();
  keys.forEach((key, i) => {
    if (key !== null) mass.set(key, (mass.get(key) ?? 0) + confidence[i]);
  });
  let best: string | null = null;
  for (const [key, value] of mass) if (best === null || value > (mass.get(best) as number)) best = key;
  return best;
}

export function createSelfConfidenceReward(options: unknown, context?: RewardContext): Reward {
  const parsed = parseConfig(optionsSchema, options ?? {}, "reward 'self-confidence' options");
  const policy =
    parsed.form === 'sequence' ? requirePolicy('self-confidence', context, { forward: true }) : null;

  async function groupConfidence(problem: Problem, group: readonly string[]): Promise<GroupConfidence> {
    const keys = group.map((completion) => answerKey(problem, completion));
    let confidence: number[];
    if (policy !== null) {
      confidence = await sequenceProbabilities(policy, problem, group, parsed.eos);
    } else {
      const counts = new Map<string, number>();
      for (const key of keys) if (key !== null) counts.set(key, (counts.get(key) ?? 0) + 1);
      confidence = keys.map((key) => (key === null ? 0 : (counts.get(key) as number) / group.length));
    }
    return { confidence, label: labelOf(keys, confidence), keys };
  }

  return {
    name: 'self-confidence',
    usesPolicy: policy !== null,
    async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
      const groups = new Map<readonly string[], Promise<GroupConfidence>>();
      return Promise.all(
        inputs.map(async (input): Promise<RewardResult> => {
          const group = input.group;
          if (group === undefined || group.length === 0) {
            throw new UserError(
              `reward 'self-confidence' needs the group of completions of problem ${input.problem.id} (input.group)`,
            );
          }
          let pending = groups.get(group);
          if (pending === undefined) {
            pending = groupConfidence(input.problem, group);
            groups.set(group, pending);
          }
          const scored = await pending;
          let index = group.indexOf(input.completion);
          let confidence: number;
          let key: string | null;
          if (index >= 0) {
            confidence = scored.confidence[index];
            key = scored.keys[index];
          } else {
            // A completion outside its group (unusual): scored on its own.
            const own = await groupConfidence(input.problem, [input.completion]);
            index = 0;
            confidence = own.confidence[0];
            key = own.keys[0];
          }
          const reward = policy !== null ? confidence + parsed.alpha : confidence;
          const selfPass = key !== null && key === scored.label;
          const gold = goldComponents(input.problem, input.completion, selfPass);
          const components: Record<string, number> = {
            confidence,
            answered: key === null ? 0 : 1,
            ...gold,
          };
          // Calibration of the confidence against the gold verdict: its step mean is the Brier score.
          if (gold.gold_correct !== undefined)
            components.confidence_brier = (confidence - gold.gold_correct) ** 2;
          const result: RewardResult = { reward, components };
          if (key === null) result.reason = 'no answer';
          else if (!selfPass) result.reason = 'not the most confident answer of its group';
          return result;
        }),
      );
    },
  };
}

export const selfConfidenceReward = defineReward({
  id: 'self-confidence',
  description: "RLSC: the model's own confidence in its sample is the reward; no gold answer is read",
  paper: {
    title: 'Confidence Is All You Need: Few-Shot RL Fine-Tuning of Language Models',
    arxiv: '2506.06395',
  },
  optionsSchema: optionsSchema,
  create: createSelfConfidenceReward,
});
