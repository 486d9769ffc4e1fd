// The policy being trained as the judge (`endpoint: policy`): self-judging, after "Self-Rewarding
// Rubric-Based Reinforcement Learning for Open-Ended Reasoning" (digest ¶32): the model grades its own
// rollouts against the rubric and the grade is its reward (and, the paper finds, the model becomes a better
// grader as it trains). Any judge family works over it (judge-rubric is the paper's; judge-score,
// judge-checklist, judge-ranking, judge-pairwise too): the prompt goes to the policy (RewardContext.policy,
// bound once the RL loop has loaded it), not to a server.
//
// How a call is answered: the prompt is the tokenizer's chat rendering with `api: chat` when the tokenizer
// has one (a chat model), else [BOS] + the text; the reply is sampled at the options' temperature (default 0,
// greedy) with a seed hashed from the options' seed and the prompt, so a draw does not depend on what else
// is judged in the batch (sampleWithPromptSeeds); at most `maxTokens`, fewer when the context is short.
// Calls that arrive together are sampled in one batch. Verdict probabilities (`probabilities: true`) read
// the policy's own top log-probabilities. Deviations and limits, stated: (1) no verdict cache: the judge
// changes with every update, so yesterday's verdict is not today's (the cache of a fixed judge would be
// wrong here); (2) no rate limits (there is no server); (3) a prompt the tokenizer cannot encode (the
// embedded suite's small vocabulary) or that leaves no room for a reply fails the call, and the failure
// policy applies as to any judge failure.

import type { RewardContext, RewardPolicy } from '../../core/reward.ts';
import { bosPrompt } from '../../tasks/format.ts';
import { requirePolicy, seedOf } from '../self-policy.ts';
import { emptyUsage, type JudgeAnswer, type JudgeTransport, type JudgeUsage } from './client.ts';
import type { JudgeEndpointOptions } from './options.ts';
import { JudgeCallError, type TokenAlternatives } from './reply.ts';

interface Pending {
  prompt: number[];
  seed: number;
  topLogprobs: number;
  resolve: (answer: JudgeAnswer) => void;
  reject: (error: Error) => void;
}

export class PolicyJudge implements JudgeTransport {
  readonly label = 'the policy being trained';
  readonly usage: JudgeUsage = emptyUsage();
  private queue: Pending[] = [];

  constructor(
    private readonly policy: RewardPolicy,
    private readonly options: Pick<JudgeEndpointOptions, 'api' | 'temperature' | 'maxTokens' | 'seed'>,
  ) {}

  ask(text: string, { topLogprobs }: { topLogprobs?: number } = {}): Promise<JudgeAnswer> {
    this.usage.calls++;
    let prompt: number[];
    try {
      prompt = this.encode(text);
    } catch (error) {
      this.usage.failedCalls++;
      return Promise.reject(
        new JudgeCallError(`the policy cannot read the judge prompt: ${(error as Error).message}`),
      );
    }
    if (prompt.length >= this.policy.contextLength) {
      this.usage.failedCalls++;
      return Promise.reject(
        new JudgeCallError(
          `the judge prompt takes ${prompt.length} tokens of the policy's ${this.policy.contextLength}: no room for a verdict`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.flush());
      this.queue.push({
        prompt,
        seed: seedOf(this.options.seed ?? 0, text),
        topLogprobs: topLogprobs ?? 0,
        resolve,
        reject,
      });
    });
  }

  remember(): void {}

  useCacheFile(): void {}

  close(): void {}

  private encode(text: string): number[] {
    const { tokenizer } = this.policy;
    if (this.options.api === 'chat' && tokenizer.renderPrompt)
      return tokenizer.renderPrompt(text, 'judge prompt');
    return bosPrompt(tokenizer, text, 'judge prompt');
  }

  /** Samples every call queued since the last flush: one batch per (reply budget, top-logprobs) pair. */
  private async flush(): Promise<void> {
    const calls = this.queue;
    this.queue = [];
    const batches = new Map<string, Pending[]>();
    for (const call of calls) {
      const key = `${this.budget(call)}:${call.topLogprobs}`;
      const batch = batches.get(key);
      if (batch) batch.push(call);
      else batches.set(key, [call]);
    }
    await Promise.all([...batches.values()].map((batch) => this.sampleBatch(batch)));
  }

  private budget(call: Pending): number {
    return Math.min(this.options.maxTokens, this.policy.contextLength - call.prompt.length);
  }

  private async sampleBatch(batch: Pending[]): Promise<void> {
    const options = {
      n: 1,
      temperature: this.options.temperature,
      topP: 1,
      maxTokens: this.budget(batch[0]),
      seed: batch[0].seed,
      ...(batch[0].topLogprobs > 0 ? { topLogprobs: batch[0].topLogprobs } : {}),
    };
    const prompts = batch.map((call) => call.prompt);
    let rows: Awaited<ReturnType<RewardPolicy['sample']>>;
    try {
      rows = this.policy.sampleWithPromptSeeds
        ? await this.policy.sampleWithPromptSeeds(
            prompts,
            options,
            batch.map((call) => call.seed),
          )
        : await Promise.all(
            batch.map(
              async (call) => (await this.policy.sample([call.prompt], { ...options, seed: call.seed }))[0],
            ),
          );
    } catch (error) {
      this.usage.failedCalls += batch.length;
      for (const call of batch)
        call.reject(new JudgeCallError(`the policy judge failed: ${(error as Error).message}`));
      return;
    }
    batch.forEach((call, i) => {
      const sequence = rows[i][0];
      this.usage.promptTokens += call.prompt.length;
      this.usage.completionTokens += sequence.tokens.length;
      const tokens: TokenAlternatives[] | undefined = sequence.topLogprobs?.map((top, t) => ({
        token: this.policy.tokenizer.decode([sequence.tokens[t]]),
        top: top.map((entry) => ({
          token: this.policy.tokenizer.decode([entry.token]),
          logprob: entry.logprob,
        })),
      }));
      call.resolve({
        text: sequence.text,
        usage: { promptTokens: call.prompt.length, completionTokens: sequence.tokens.length },
        ...(tokens ? { tokens } : {}),
        cached: false,
      });
    });
  }
}

/** The policy judge of a reward's context, or a ConfigError outside RL training (requirePolicy). */
export function policyJudge(
  reward: string,
  options: Pick<JudgeEndpointOptions, 'api' | 'temperature' | 'maxTokens' | 'seed'>,
  context: RewardContext | undefined,
): PolicyJudge {
  return new PolicyJudge(requirePolicy(`${reward} (endpoint: policy)`, context), options);
}
