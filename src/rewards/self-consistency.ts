// The `self-consistency` reward (SCS): each completion is cut after a share of its tokens and the policy
// resamples the rest several times; the fewer distinct final answers the resampled continuations reach,
// the more the completion's reasoning is trusted. No gold answer is read.
// Paper: "Enhancing the Outcome Reward-based RL Training of MLLMs with Self-Consistency Sampling" (Wang et
// al., NeurIPS 2025, arXiv 2511.10648, digest ¶58). Authors' code: GenuineWWD/SCS (a fork of lmm-r1),
// read: openrlhf/trainer/ppo_utils/experience_maker.py (cut_idx = int(len(response_ids) · cut_keep_rate),
// the prompt + the kept tokens resampled n_cuts_per_prompt times) and
// openrlhf/models/remote_rm/option_verifier_cut_response.py (consistency_reward = (4 − |set of answers of
// the resampled responses|) · 0.3, a missing answer counting as one more class; their reward is
// 0.5·format + accuracy + consistency).
// Defaults from examples/SCS/rloo_*.sh: cuts 4 (n_cuts_per_prompt), keepRate 0.8 (cut_keep_rate; the
// GRPO script uses 0.4), weight 0.3.
//   reward_i = weight · (cuts − |distinct answers of the cuts resampled continuations of completion i|)
// Deviations: (1) this reward is the consistency term alone (gold-free); the authors' full reward adds
// format and gold accuracy: compose it with `composite` (parts verifier + self-consistency); (2) the
// authors' constant 4 is `cuts` here, so other cut counts keep the range [0, weight·(cuts−1)]; (3) the
// visual perturbation of the paper has no text counterpart and is left out; (4) the completion is
// re-encoded from its text (exact for the character tokenizer) and a forced prefix counts as part of it;
// (5) resampling uses this reward's own temperature / topP / maxTokens options (the authors reuse the
// rollout's sampling params), each completion with its own seed hashed from the option seed, the step,
// the problem and the completion (so its score does not depend on its batch): one batched call per token
// limit with per-prompt seeds (RewardPolicy.sampleWithPromptSeeds), else one call per completion.
// Diagnostics: agreement (share of continuations whose answer equals the completion's own), distinct;
// self_gold_agreement with the self-verdict "agreement ≥ 1/2" (self-policy.ts).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { SampledSequence } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { Reward, RewardContext, RewardInput, RewardResult } from '../core/reward.ts';
import { promptTokens } from '../tasks/format.ts';
import { defineReward } from './registry.ts';
import { answerKey, goldComponents, requirePolicy, seedOf } from './self-policy.ts';

const optionsSchema = z.strictObject({
  /** Resampled continuations per completion (authors' n_cuts_per_prompt). */
  cuts: z.number().int().min(1).default(4),
  /** Share of the completion's tokens kept before resampling (authors' cut_keep_rate). */
  keepRate: z.number().min(0).max(1).default(0.8),
  /** Reward per answer class fewer than `cuts` (authors' 0.3). */
  weight: z.number().default(0.3),
  temperature: z.number().positive().default(1),
  topP: z.number().gt(0).max(1).default(1),
  /** Most tokens per continuation (also capped by the policy's context). */
  maxTokens: z.number().int().min(1).default(256),
  seed: z.number().int().min(0).default(0),
});

export type SelfConsistencyOptions = z.input<typeof optionsSchema>;

export function createSelfConsistencyReward(options: unknown, context?: RewardContext): Reward {
  const parsed = parseConfig(optionsSchema, options ?? {}, "reward 'self-consistency' options");
  const policy = requirePolicy('self-consistency', context);

  return {
    name: 'self-consistency',
    usesPolicy: true,
    async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
      if (inputs.length === 0) return [];
      const tokenizer = policy.tokenizer;
      // The prompt and the first ⌊len·keepRate⌋ completion tokens, leaving at least one token of context
      // to sample (only binds with keepRate near 1 on a completion that filled the context).
      const rows = inputs.map((input) => {
        const prompt = promptTokens(tokenizer, input.problem);
        const completion = tokenizer.encode(input.completion, `completion of ${input.problem.id}`);
        const room = Math.max(0, policy.contextLength - 1 - prompt.length);
        const kept = Math.min(Math.floor(completion.length * parsed.keepRate), room);
        return {
          prefix: [...prompt, ...completion.slice(0, kept)],
          keptText: tokenizer.decode(completion.slice(0, kept)),
        };
      });
      // Each completion's continuations come from its own seed (option seed, step, problem, completion),
      // so they do not depend on the batch: one batched call per token limit when the policy samples with
      // per-prompt seeds (the embedded backends), else one call per completion.
      const seeds = inputs.map((input) =>
        seedOf(parsed.seed, input.step ?? 0, input.problem.id, input.completion),
      );
      const limits = rows.map((row) =>
        Math.max(1, Math.min(parsed.maxTokens, policy.contextLength - row.prefix.length)),
      );
      const optionsFor = (maxTokens: number, seed: number) => ({
        n: parsed.cuts,
        temperature: parsed.temperature,
        topP: parsed.topP,
        maxTokens,
        seed,
      });
      const sampled: SampledSequence[][] = inputs.map(() => []);
      const seeded = policy.sampleWithPromptSeeds?.bind(policy);
      if (seeded) {
        const byLimit = new Map<number, number[]>();
        for (const [i, limit] of limits.entries()) byLimit.set(limit, [...(byLimit.get(limit) ?? []), i]);
        for (const [limit, indices] of byLimit) {
          const rowsOut = await seeded(
            indices.map((i) => rows[i].prefix),
            optionsFor(limit, 0),
            indices.map((i) => seeds[i]),
          );
          for (const [j, i] of indices.entries()) sampled[i] = rowsOut[j];
        }
      } else {
        for (const [i, row] of rows.entries()) {
          sampled[i] = (await policy.sample([row.prefix], optionsFor(limits[i], seeds[i])))[0];
        }
      }
      const continuations = sampled.map((sequences, i) =>
        sequences.map((sequence) => rows[i].keptText + sequence.text),
      );
      return inputs.map((input, i) => scoreOne(input.problem, input.completion, continuations[i]));
    },
  };

  function scoreOne(problem: Problem, completion: string, resampled: readonly string[]): RewardResult {
    const own = answerKey(problem, completion);
    const keys = resampled.map((text) => answerKey(problem, text));
    // A missing answer is one more class, as the authors' set of extracted answers holds None.
    const distinct = new Set(keys.map((key) => (key === null ? '\u0000none' : `=${key}`))).size;
    const agreement =
      own === null ? 0 : keys.filter((key) => key === own).length / Math.max(1, resampled.length);
    const reward = parsed.weight * (parsed.cuts - distinct);
    const selfPass = own !== null && agreement >= 0.5;
    const result: RewardResult = {
      reward,
      components: {
        consistency: reward,
        distinct,
        agreement,
        ...goldComponents(problem, completion, selfPass),
      },
    };
    if (distinct > 1)
      result.reason = `${distinct} distinct answers over ${parsed.cuts} resampled continuations`;
    return result;
  }
}

export const selfConsistencyReward = defineReward({
  id: 'self-consistency',
  description:
    'SCS: truncate and resample each completion; the fewer distinct final answers, the higher the reward',
  paper: {
    title: 'Enhancing the Outcome Reward-based RL Training of MLLMs with Self-Consistency Sampling',
    arxiv: '2511.10648',
    code: 'GenuineWWD/SCS',
  },
  optionsSchema: optionsSchema,
  create: createSelfConsistencyReward,
});
