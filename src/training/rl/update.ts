// The policy update of an RL step: per-token loss weights computed on the client (pure functions in
// src/algorithms), then forwardBackward('linear') + optimStep on the backend, for `epochs` passes over
// `minibatches` minibatches.
//
// The first minibatch after sampling uses the sampling-time log-probs as the current ones (the weights
// have not changed since, so π_θ = π_old and the ratio is 1); every later minibatch recomputes them with
// a forward pass, as Tinker's two-pass custom loss does.
import type { AdvantageEstimate } from '../../algorithms/advantages/estimator.ts';
import { klLossPenalty } from '../../algorithms/kl.ts';
import {
  type AggregationOptions,
  addWeights,
  type LossSequence,
} from '../../algorithms/losses/policy-loss.ts';
import type { Datum } from '../../core/policy.ts';
import type { RlContext } from './context.ts';
import type { SampledGroup } from './rollout.ts';

/** One trainable completion. */
interface Item {
  context: number[];
  completion: number[];
  /** log π_old (temperature 1) of the completion tokens at sampling time. */
  oldLogprobs: number[];
  advantage: number;
  refLogprobs?: number[];
}

export interface UpdateResult {
  metrics: Record<string, number>;
  /** Completions that entered the loss. */
  trainedSequences: number;
}

export async function updatePolicy(
  ctx: RlContext,
  groups: readonly SampledGroup[],
  estimate: AdvantageEstimate,
  learningRate: number,
  refLogprobs: number[][][] | null,
): Promise<UpdateResult> {
  const items: Item[] = [];
  groups.forEach((group, g) => {
    group.rollouts.forEach((rollout, i) => {
      if (!estimate.included[g][i] || rollout.tokens.length === 0) return;
      items.push({
        context: group.context,
        completion: rollout.tokens,
        oldLogprobs: rollout.logprobs,
        advantage: estimate.advantages[g][i],
        refLogprobs: refLogprobs?.[g][i],
      });
    });
  });
  const { epochs, minibatches } = ctx.config.algorithm;
  const sums: Record<string, number> = {};
  let updates = 0;
  for (let epoch = 0; epoch < epochs && items.length > 0; epoch++) {
    const order = ctx.rng.shuffle(items.map((_, index) => index));
    const size = Math.ceil(order.length / minibatches);
    for (let start = 0; start < order.length; start += size) {
      const batch = order.slice(start, start + size).map((index) => items[index]);
      const metrics = await updateMinibatch(ctx, batch, learningRate, updates === 0);
      for (const [key, value] of Object.entries(metrics)) sums[key] = (sums[key] ?? 0) + value;
      updates++;
    }
  }
  const metrics = Object.fromEntries(
    Object.entries(sums).map(([key, value]) => [key, value / Math.max(1, updates)]),
  );
  return { metrics, trainedSequences: items.length };
}

async function updateMinibatch(
  ctx: RlContext,
  batch: readonly Item[],
  learningRate: number,
  onPolicy: boolean,
): Promise<Record<string, number>> {
  const { policy, config } = ctx;
  const current = onPolicy
    ? batch.map((item) => item.oldLogprobs)
    : (await policy.forward(batch.map((item) => [...item.context, ...item.completion]))).map(
        (logprobs, index) => logprobs.slice(batch[index].context.length - 1),
      );
  const sequences: LossSequence[] = batch.map((item, index) => ({
    logprobs: current[index],
    oldLogprobs: item.oldLogprobs,
    advantages: item.advantage,
    mask: item.completion.map(() => 1),
  }));
  const policyLoss = ctx.loss.compute(sequences, ctx.lossOptions);
  let weights = policyLoss.weights;
  const metrics: Record<string, number> = { ...policyLoss.metrics };
  const kl = config.algorithm.kl;
  if (kl.coefficient > 0 && kl.mode === 'loss') {
    // One normaliser for both terms, as verl (agg_loss on the KL matrix with the policy loss's
    // loss_agg_mode) and TRL (β·KL added per token before aggregation) do: the KL term takes the loss's
    // aggregation mode and its tokenSumNormaliser N.
    const { aggregation, tokenSumNormaliser } = ctx.loss.resolveOptions(
      ctx.lossOptions,
    ) as AggregationOptions;
    const penalty = klLossPenalty(
      batch.map((item, index) => ({
        logprobs: current[index],
        refLogprobs: item.refLogprobs!,
        mask: sequences[index].mask,
      })),
      { estimator: kl.estimator, coefficient: kl.coefficient, aggregation, tokenSumNormaliser },
    );
    weights = addWeights(weights, penalty.weights);
    Object.assign(metrics, penalty.metrics);
  }
  const data: Datum[] = batch.map((item, index) => ({
    tokens: [...item.context, ...item.completion],
    weights: [...new Array(item.context.length - 1).fill(0), ...weights[index]],
  }));
  await policy.forwardBackward(data, 'linear');
  const optim = await policy.optimStep({
    learningRate,
    betas: config.train.betas,
    eps: config.train.eps,
    weightDecay: config.train.weightDecay,
    gradClip: config.train.gradClip,
  });
  metrics['train/grad_norm'] = optim.gradNorm;
  return metrics;
}
