// Old log-probs under the restored (training) context, for completions sampled from a scaffolded one
// (Attempt.trainPrompt / memberPrompts: RuscaRL's graded_system_prompt_participate_training=False, the
// retried completions of reflect-then-retry). The sampler's log-probs of such a completion are under the
// prompt it saw (rubric criteria, a failed attempt and its feedback); the loss trains it as an answer to
// the bare prompt, so the importance ratio π_θ/π_old must use π_old under the bare prompt. RuscaRL's verl
// recomputes the old log-probs with the actor on the restored prompt (compute_log_prob after the rollout
// swapped the prompts back); here: one batched `forward` over those members at the sampling weights,
// before any update. The result is π_old and also stands in for the sampler's log-probs (the behaviour
// policy under the bare prompt is unknown, so rollout correction has nothing to weigh: weight 1).
import type { PolicyBackend } from '../../core/policy.ts';

export interface RestorableItem {
  context: number[];
  completion: number[];
  samplerLogprobs: number[];
  trainerLogprobs: number[] | null;
  restored?: boolean;
}

/** The policy's log-probs of each item's completion tokens under its context, in one forward ([] for none). */
export async function completionLogprobs(
  policy: PolicyBackend,
  items: readonly { context: number[]; completion: number[] }[],
): Promise<number[][]> {
  if (items.length === 0) return [];
  const all = await policy.forward(items.map((item) => [...item.context, ...item.completion]));
  return all.map((logprobs, index) => logprobs.slice(items[index].context.length - 1));
}

/** Sets π_old (and the sampler's stand-in) of every restored item from one forward under its context. */
export async function restoredLogprobs(
  policy: PolicyBackend,
  items: readonly RestorableItem[],
): Promise<void> {
  const restored = items.filter((item) => item.restored);
  const all = await completionLogprobs(policy, restored);
  restored.forEach((item, index) => {
    const logprobs = all[index];
    item.trainerLogprobs = logprobs;
    item.samplerLogprobs = logprobs;
  });
}
