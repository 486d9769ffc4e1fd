// The `retry` phase of an RL step (reflect-then-retry; contract in src/guidance/retry-contract.ts): after a
// round of groups is graded, the scaffold picks groups to retry and writes each a retry prompt (the
// original problem, a failed attempt, the grader's feedback); this phase samples and grades those retries
// in one call each (sampleGroups / scoreGroups, like the first round), then lets successful retries replace
// failed members of their original group, at most `maxReplace` per group, and tells the scaffold.
//
// Mixing: replaced members, as AMPO and LUFFY replace members with off-policy solutions, rather than a
// separate group. The group keeps G members, so the advantage estimator sees the retry's success next to
// the first round's failures: in a zero-success group (all rewards 0, no GRPO signal) a replaced success
// gets A > 0 and the remaining failures A < 0. A separate group of only successful retries would have
// equal rewards and no advantage at all; a separate group of every retry would train the failed retries
// too, which the method does not ask for. Which failures are replaced: the last failed members, from the
// end (the members are i.i.d. samples, so the choice carries no information; it keeps the phase
// deterministic). A retried member keeps `sampledFrom` (the retry prompt), so update.ts recomputes its old
// log-probs under the original prompt (the retry attempt's trainPrompt, which must give the group's
// context). Retries that fail, and successes beyond maxReplace, are not trained.
// With dynamic sampling the phase runs inside each rollout round, before the filter: a zero-success group
// that a retry rescued has a learning signal and is kept.
import type { Attempt } from '../../../guidance/guidance.ts';
import type { RetryRequest, RetryResult } from '../../../guidance/retry-contract.ts';
import type { RlContext } from '../../rl/context.ts';
import { type SampledGroup, sampleGroups, scoreGroups } from '../../rl/rollout.ts';

/** Runs the scaffold's retries for `groups` (graded) and merges successful ones into them. */
export async function retryRound(
  ctx: RlContext,
  groups: readonly SampledGroup[],
  step: number,
  seed: number,
): Promise<void> {
  const hook = ctx.guidance.retry;
  if (!hook) return;
  const requests = hook.plan(step, groups);
  if (requests.length === 0) {
    hook.observe(step, []);
    return;
  }
  for (const request of requests) checkRequest(request, groups);
  const retried = await sampleGroups(
    ctx,
    requests.map((request) => request.attempt),
    seed,
    requests.map((request) => request.samples),
  );
  await scoreGroups(ctx, retried, step);
  const results: RetryResult[] = requests.map((request, index) => ({
    request,
    rewards: retried[index].rewards,
    replaced: mergeRetry(groups[request.group], retried[index], request.maxReplace),
  }));
  hook.observe(step, results);
}

function checkRequest(request: RetryRequest, groups: readonly SampledGroup[]): void {
  const group = groups[request.group];
  if (!group) throw new RangeError(`retry for group ${request.group} of ${groups.length}`);
  const original: Attempt = group.attempt;
  const trainPrompt = request.attempt.trainPrompt ?? request.attempt.prompt;
  if (
    request.attempt.problem.id !== original.problem.id ||
    trainPrompt !== (original.trainPrompt ?? original.prompt) ||
    request.attempt.prefix !== original.prefix
  ) {
    throw new RangeError(
      `retry of problem ${original.problem.id}: the retry must be trained on the group's own prompt and prefix (set trainPrompt)`,
    );
  }
}

/** Successful retry members replace the group's last failed members; returns how many were replaced. */
function mergeRetry(group: SampledGroup, retry: SampledGroup, maxReplace: number): number {
  const failed = group.rewards.flatMap((reward, index) => (reward > 0 ? [] : [index])).reverse();
  const successes = retry.rewards.flatMap((reward, index) => (reward > 0 ? [index] : []));
  const count = Math.min(maxReplace, failed.length, successes.length);
  for (let k = 0; k < count; k++) {
    const target = failed[k];
    const source = successes[k];
    group.rollouts[target] = { ...retry.rollouts[source], retried: true };
    group.completions[target] = retry.completions[source];
    group.rewards[target] = retry.rewards[source];
    group.results[target] = retry.results[source];
  }
  return count;
}
