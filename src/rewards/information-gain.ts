// The `information-gain` reward (RLP): a thought is worth how much it helps predict the text that follows.
// Paper: "RLP: Reinforcement as a Pretraining Objective" (Hatamizadeh et al., NVIDIA, arXiv 2510.01265,
// digest ¶42); the authors' repository NVlabs/RLP (read through `search`) holds a README only, no code:
//   r(c) = log p_θ(x | x_<t, c) − log p̄_φ(x | x_<t),
// the reasoned score of the true continuation x minus a no-think baseline from an EMA teacher p̄_φ.
// Here, for a problem of the text-corpus task (src/tasks/text-corpus.ts) or any problem with a gold answer:
//   thought c  = the completion's lines before its first `A:` line (the model's own prediction, if any,
//                is ignored; the reward never reads it);
//   with       = [BOS] prompt + c + '\n' + 'A:' + x     (just prompt + 'A:' + x when c is empty)
//   without    = [BOS] prompt + 'A:' + x
//   reward     = Σ log p(x tokens | with) − Σ log p(x tokens | without)   (aggregate 'sum', default), or
//                the same divided by x's token count (aggregate 'mean', per-token as in RLP's dense reward)
// with x = problem.answer, both from `forward` calls on the policy being trained (RewardPolicy handle),
// one batched call per scoring batch (each problem's no-thought row once).
// Deviations: (1) the no-think baseline is the CURRENT policy (the sampling weights: rewards are computed
// before the update), not an EMA teacher: there is no second model in the loop. An EMA of the policy
// would lag behind it and so reward thoughts for what the policy has since learned without them; with
// the current policy the gain is the thought's help now. (2) RLP scores every next token of a document
// with its own thought (dense per-position rewards) and updates only the thought tokens; here one thought
// per problem (a cut) and the continuation is the cut's whole target (word or line), and the loop trains
// every completion token, including any `A:` line the model wrote. (3) A thought too long for the
// context with the continuation is cut from its end (component thought_truncated = 1).
// (4) The completion text is re-encoded (exact for the char tokenizer).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { UserError } from '../core/errors.ts';
import type { Tokenizer } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { Reward, RewardContext, RewardInput, RewardResult } from '../core/reward.ts';
import { promptTokens } from '../tasks/format.ts';
import { answerPrefix } from '../tasks/task.ts';
import { defineReward } from './registry.ts';
import { requirePolicy } from './self-policy.ts';

const optionsSchema = z.strictObject({
  /** 'sum': log-likelihood gain of the whole continuation; 'mean': per continuation token. */
  aggregate: z.enum(['sum', 'mean']).default('sum'),
});

/** The thought of a completion: its lines before the first line that starts with `A:`. */
export function thoughtOf(completion: string): string {
  const lines = completion.split('\n');
  const answerLine = lines.findIndex((line) => line.startsWith(answerPrefix));
  return (answerLine < 0 ? lines : lines.slice(0, answerLine)).join('\n').replace(/\n+$/, '');
}

/** Token rows: prompt + (thought + '\n')? + 'A:' + continuation; and where the continuation starts. */
export function scoredSequence(
  tokenizer: Tokenizer,
  problem: Problem,
  thought: number[],
): { tokens: number[]; continuationStart: number } {
  const prompt = promptTokens(tokenizer, problem);
  const head = [...prompt, ...thought, ...tokenizer.encode(answerPrefix, 'answer marker')];
  const continuation = tokenizer.encode(problem.answer, `answer of ${problem.id}`);
  return { tokens: [...head, ...continuation], continuationStart: head.length };
}

function continuationLogProb(row: readonly number[], continuationStart: number, length: number): number {
  // row[i] = log p(tokens[i + 1] | tokens[..i])
  let sum = 0;
  for (let t = continuationStart; t < continuationStart + length; t++) sum += row[t - 1];
  return sum;
}

export function createInformationGainReward(options: unknown, context?: RewardContext): Reward {
  const { aggregate } = parseConfig(optionsSchema, options ?? {}, "reward 'information-gain' options");
  const policy = requirePolicy('information-gain', context, { forward: true });
  const forward = (rows: number[][]) => (policy.forward as (s: number[][]) => Promise<number[][]>)(rows);

  return {
    name: 'information-gain',
    usesPolicy: true,
    async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
      const tokenizer = policy.tokenizer;
      const rows: number[][] = [];
      const baselineRow = new Map<Problem, number>();
      const items = inputs.map(({ problem, completion }) => {
        if (problem.answer.length === 0) {
          throw new UserError(
            `reward 'information-gain' needs the text's continuation (problem.answer) of ${problem.id}`,
          );
        }
        if (!baselineRow.has(problem)) {
          baselineRow.set(problem, rows.length);
          rows.push(scoredSequence(tokenizer, problem, []).tokens);
        }
        const text = thoughtOf(completion);
        let thought = text.length > 0 ? tokenizer.encode(`${text}\n`, `thought for ${problem.id}`) : [];
        const base = scoredSequence(tokenizer, problem, []);
        const room = policy.contextLength - base.tokens.length;
        const truncated = thought.length > room;
        if (truncated) thought = thought.slice(0, Math.max(0, room));
        const scored = scoredSequence(tokenizer, problem, thought);
        rows.push(scored.tokens);
        return {
          problem,
          row: rows.length - 1,
          continuationStart: scored.continuationStart,
          length: scored.tokens.length - scored.continuationStart,
          thoughtTokens: thought.length,
          truncated,
        };
      });
      const logprobs = rows.length > 0 ? await forward(rows) : [];
      return items.map((item): RewardResult => {
        const baseIndex = baselineRow.get(item.problem) as number;
        const base = scoredSequence(tokenizer, item.problem, []);
        const without = continuationLogProb(logprobs[baseIndex], base.continuationStart, item.length);
        const withThought = continuationLogProb(logprobs[item.row], item.continuationStart, item.length);
        const gain = withThought - without;
        const reward = aggregate === 'mean' ? gain / item.length : gain;
        return {
          reward,
          components: {
            logp_with_thought: withThought,
            logp_without_thought: without,
            thought_tokens: item.thoughtTokens,
            thought_truncated: item.truncated ? 1 : 0,
          },
        };
      });
    },
  };
}

export const informationGainReward = defineReward({
  id: 'information-gain',
  description:
    'RLP: how much a thought raises the log-likelihood of the text that follows, over a no-think baseline',
  paper: { title: 'RLP: Reinforcement as a Pretraining Objective', arxiv: '2510.01265' },
  optionsSchema: optionsSchema,
  create: createInformationGainReward,
});
