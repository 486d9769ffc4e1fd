// The policy update of an RL step: per-token loss weights computed on the client (pure functions in
// src/algorithms), then forwardBackward('linear') + optimStep on the backend, for `epochs` passes over
// `minibatches` minibatches. Tokens of an expert trace (SampledGroup members with `expertTokens`) are marked
// offPolicy in the loss's sequences; the loss then gives them its expert term (setup.ts builds it with
// src/algorithms/losses/expert-tokens.ts when the guidance injects traces; any other loss refuses them).
//
// The first minibatch after sampling uses the sampling-time log-probs as the current ones (the weights
// have not changed since, so π_θ = π_old and the ratio is 1); every later minibatch recomputes them with
// a forward pass, as Tinker's two-pass custom loss does.
//
// Sampler/trainer mismatch (src/algorithms/mismatch.ts): the trainer's log-probs of the sampled tokens at
// the sampling weights sit next to the sampler's in each item and give the mismatch/* metrics each step.
// - With the loss's rolloutCorrection on, they come from an old-logprob pass (one forward over the batch
//   before any update, as TRL computes old_per_token_logps whenever its vLLM correction is on, and as
//   verl's decoupled mode does). They are then π_old of the loss (its ratio π_θ/π_old starts at exactly
//   1) and the correction weighs π_old against the sampler's log-probs.
// - With it off (the default) no pass is added: the first minibatch's forwardBackward returns the
//   trainer's log-probs at the sampling weights, and the metrics come from that minibatch (all items when
//   minibatches = 1; mismatch/tokens says how many). The loss keeps π_old = the sampler's log-probs.
//
// Members sampled from another context than the one they are trained on (GroupRollout.sampledFrom: a
// scaffold removed before the loss, RuscaRL / reflect-then-retry): their sampler log-probs belong to the
// scaffolded context, so π_old is recomputed under the training context with one forward over those
// members before any update (as verl recomputes old log-probs with the actor on the restored prompt;
// restored-context.ts). The recomputed log-probs also stand in for the sampler's (rollout correction
// weighs nothing there) and those members are left out of the mismatch/* metrics.
//
// An entropy bonus (algorithm.entropy, src/algorithms/entropy.ts) joins the loss like the KL term, with the
// loss's aggregation: 'exact' sends entropy weights −β·c with each datum (the backend adds Σ e·H from the
// full distribution and returns H, logged as losses/entropy); 'sampled' adds β·c·r·logp to the weights.
//
// Members replayed from a past step (GroupRollout.replayedFrom, ReMix, components/remix) keep their
// behaviour policy's log-probs as π_old; their current log-probs come from one forward before the first
// minibatch (replayedLogprobs), so the first minibatch's ratio is π_θ/π_{θ_{k−i}}, not 1. They are left out
// of the mismatch/* metrics (their sampler log-probs are of other weights).
//
// Tokens an environment wrote into a multi-turn episode (GroupRollout.lossMask 0: tool outputs) are in
// the sequence, as the policy saw them, with mask 0: no loss, no KL, no mismatch metric.
import type { AdvantageEstimate } from '../../algorithms/advantages/estimator.ts';
import { exactEntropyWeights, meanEntropy, sampledEntropyWeights } from '../../algorithms/entropy.ts';
import { klConvexPenalty } from '../../algorithms/kl-convex.ts';
import {
  type AggregationOptions,
  addWeights,
  type LossSequence,
} from '../../algorithms/losses/policy-loss.ts';
import {
  type MismatchSequence,
  mismatchMetrics,
  type RolloutCorrection,
  rolloutCorrectionSchema,
} from '../../algorithms/mismatch.ts';
import type { Datum } from '../../core/policy.ts';
import type { RlContext } from './context.ts';
import { completionLogprobs, restoredLogprobs } from './restored-context.ts';
import type { SampledGroup } from './rollout.ts';

/** One trainable completion. */
interface Item {
  context: number[];
  completion: number[];
  /** The sampler's log-probs (temperature 1) of the completion tokens. */
  samplerLogprobs: number[];
  /** The trainer's log-probs of the same tokens at the sampling weights (old-logprob pass); null = none. */
  trainerLogprobs: number[] | null;
  /** One advantage per sequence, or per token (the distillation phase's, distillation.ts). */
  advantage: number | readonly number[];
  refLogprobs?: number[];
  /** Per token: copied from an expert trace (expert-traces.ts); absent when every token was sampled. */
  offPolicy?: boolean[];
  /** Sampled from another context than `context` (GroupRollout.sampledFrom); π_old is recomputed. */
  restored?: boolean;
  /** Replayed from a past step (GroupRollout.replayedFrom, ReMix): π_old is its behaviour policy's. */
  replayed?: boolean;
  /** A replayed item's log-probs under this step's weights, before any update (the first minibatch's π_θ). */
  atStart?: number[];
  /** Per token: 0 where an environment wrote it (GroupRollout.lossMask); absent = all sampled. */
  lossMask?: number[];
  /** The sample's reward and its whole group's (for losses defined on them, LossSequence). */
  reward: number;
  groupRewards: readonly number[];
  /** Index of its group in the step's batch. */
  group: number;
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
  /** [group][sample] per-token advantages replacing the scalar estimate where given (distillation.ts). */
  tokenAdvantages?: readonly (readonly number[] | undefined)[][],
  /** β of the KL loss term at this step (algorithm.kl.anneal); absent = algorithm.kl.coefficient. */
  klCoefficient?: number,
): Promise<UpdateResult> {
  const items: Item[] = [];
  groups.forEach((group, g) => {
    group.rollouts.forEach((rollout, i) => {
      if (!estimate.included[g][i] || rollout.tokens.length === 0) return;
      const expert = rollout.expertTokens ?? 0;
      if (expert > 0 && !ctx.loss.expertTerm) {
        throw new RangeError(
          `loss '${ctx.loss.name}' has no expert term, but a group holds an expert trace (guidance '${ctx.guidance.name}')`,
        );
      }
      items.push({
        context: group.context,
        completion: rollout.tokens,
        samplerLogprobs: rollout.logprobs,
        trainerLogprobs: null,
        advantage: tokenAdvantages?.[g][i] ?? estimate.advantages[g][i],
        refLogprobs: refLogprobs?.[g][i],
        ...(expert > 0 && { offPolicy: rollout.tokens.map((_, t) => t < expert) }),
        ...(rollout.sampledFrom && { restored: true }),
        ...(rollout.replayedFrom !== undefined && { replayed: true }),
        ...(rollout.lossMask && { lossMask: rollout.lossMask }),
        reward: group.rewards[i],
        groupRewards: group.rewards,
        group: g,
      });
    });
  });
  await restoredLogprobs(ctx.policy, items);
  const correction = rolloutCorrectionOf(ctx);
  if (correction.mode !== 'off' && items.length > 0) await oldLogprobPass(ctx, items);
  await replayedLogprobs(ctx, items);
  const { epochs, minibatches } = ctx.config.algorithm;
  const sums: Record<string, number> = {};
  let measured: MismatchSequence[] = [];
  let updates = 0;
  for (let epoch = 0; epoch < epochs && items.length > 0; epoch++) {
    const order = ctx.rng.shuffle(items.map((_, index) => index));
    const size = Math.ceil(order.length / minibatches);
    for (let start = 0; start < order.length; start += size) {
      const batch = order.slice(start, start + size).map((index) => items[index]);
      const beta = klCoefficient ?? ctx.config.algorithm.kl.coefficient;
      const result = await updateMinibatch(ctx, batch, learningRate, updates === 0, beta);
      for (const [key, value] of Object.entries(result.metrics)) sums[key] = (sums[key] ?? 0) + value;
      if (updates === 0 && correction.mode === 'off') {
        measured = result.trainerMeasured.filter(
          (_, index) => !batch[index].restored && !batch[index].replayed,
        );
      }
      updates++;
    }
  }
  if (correction.mode !== 'off') {
    measured = items
      .filter((item) => !item.restored && !item.replayed)
      .map((item) => ({
        trainerLogprobs: item.trainerLogprobs!,
        samplerLogprobs: item.samplerLogprobs,
        ...(item.lossMask && { mask: item.lossMask }),
      }));
  }
  const metrics: Record<string, number> = {
    // What the correction did (the loss reports these when it is on; off: nothing weighed or masked).
    'mismatch/is_weight_mean': 1,
    'mismatch/masked_frac': 0,
    ...Object.fromEntries(Object.entries(sums).map(([key, value]) => [key, value / Math.max(1, updates)])),
    ...mismatchMetrics(measured, correction),
  };
  return { metrics, trainedSequences: items.length };
}

/** The loss's rolloutCorrection option (off when its options carry none). */
function rolloutCorrectionOf(ctx: RlContext): RolloutCorrection {
  const options = ctx.loss.resolveOptions(ctx.lossOptions) as AggregationOptions;
  return options.rolloutCorrection ?? rolloutCorrectionSchema.parse(undefined);
}

/** The trainer's log-probs of every completion at the sampling weights, before any update. */
async function oldLogprobPass(ctx: RlContext, items: Item[]): Promise<void> {
  const open = items.filter((item) => item.trainerLogprobs === null);
  const all = await completionLogprobs(ctx.policy, open);
  open.forEach((item, index) => {
    item.trainerLogprobs = all[index];
  });
}

/**
 * The current log-probs of replayed members (ReMix) at this step's weights, before any update: their
 * sampler log-probs are a past policy's, so the first minibatch cannot take those as π_θ. With rollout
 * correction on, the old-logprob pass already computed them.
 */
async function replayedLogprobs(ctx: RlContext, items: Item[]): Promise<void> {
  const replayed = items.filter((item) => item.replayed);
  const open = replayed.filter((item) => item.trainerLogprobs === null);
  const all = await completionLogprobs(ctx.policy, open);
  open.forEach((item, index) => {
    item.atStart = all[index];
  });
  for (const item of replayed) item.atStart ??= item.trainerLogprobs!;
}

interface MinibatchResult {
  metrics: Record<string, number>;
  /**
   * The first minibatch's trainer log-probs (from its forwardBackward, at the sampling weights) next to
   * the sampler's. Empty for later minibatches (their weights have moved) and when the backend returned
   * no log-probs for the data.
   */
  trainerMeasured: MismatchSequence[];
}

async function updateMinibatch(
  ctx: RlContext,
  batch: readonly Item[],
  learningRate: number,
  onPolicy: boolean,
  klCoefficient: number,
): Promise<MinibatchResult> {
  const { policy, config } = ctx;
  // π_old: the trainer's own log-probs when the old-logprob pass ran, else the sampler's.
  const oldLogprobs = batch.map((item) => item.trainerLogprobs ?? item.samplerLogprobs);
  const current = onPolicy
    ? batch.map((item, index) => item.atStart ?? oldLogprobs[index])
    : await completionLogprobs(policy, batch);
  const sequences: LossSequence[] = batch.map((item, index) => ({
    logprobs: current[index],
    oldLogprobs: oldLogprobs[index],
    samplerLogprobs: item.samplerLogprobs,
    advantages: item.advantage,
    mask: item.lossMask ?? item.completion.map(() => 1),
    ...(item.offPolicy && { offPolicy: item.offPolicy }),
    reward: item.reward,
    groupRewards: item.groupRewards,
    group: item.group,
    ...(item.refLogprobs && { refLogprobs: item.refLogprobs }),
  }));
  const policyLoss = ctx.loss.compute(sequences, ctx.lossOptions);
  let weights = policyLoss.weights;
  const metrics: Record<string, number> = { ...policyLoss.metrics };
  const kl = config.algorithm.kl;
  if (klCoefficient > 0 && kl.mode === 'loss') {
    // One normaliser for both terms, as verl (agg_loss on the KL matrix with the policy loss's
    // loss_agg_mode) and TRL (β·KL added per token before aggregation) do: the KL term takes the loss's
    // aggregation mode and its tokenSumNormaliser N.
    const { aggregation, tokenSumNormaliser } = ctx.loss.resolveOptions(
      ctx.lossOptions,
    ) as AggregationOptions;
    // ReMix's KL-Convex term when kl.precedent > 0: part of β on the KL to each sequence's π_old.
    const penalty = klConvexPenalty(
      batch.map((item, index) => ({
        logprobs: current[index],
        refLogprobs: item.refLogprobs!,
        precedentLogprobs: oldLogprobs[index],
        mask: sequences[index].mask,
        // KDRL's reward-guided KD: correct samples keep their tokens in the normaliser but no KL term.
        ...(kl.rewardGuided && item.reward >= 1 && { weight: 0 }),
      })),
      kl.precedent ?? 0,
      { estimator: kl.estimator, coefficient: klCoefficient, aggregation, tokenSumNormaliser },
    );
    weights = addWeights(weights, penalty.weights);
    Object.assign(metrics, penalty.metrics);
  }
  // Entropy bonus (src/algorithms/entropy.ts), aggregated like the policy loss: the backend's exact H
  // (entropy weights −β·c) or the sampled-token estimate (weights on logp).
  const entropy = config.algorithm.entropy;
  const masks = sequences.map((sequence) => sequence.mask);
  let entropyWeights: number[][] | null = null;
  if (entropy.coefficient > 0) {
    const aggregation = ctx.loss.resolveOptions(ctx.lossOptions) as AggregationOptions;
    if (entropy.estimator === 'exact') {
      entropyWeights = exactEntropyWeights(masks, entropy.coefficient, aggregation);
    } else {
      const sampled = sampledEntropyWeights(sequences, entropy.coefficient, aggregation);
      weights = addWeights(weights, sampled.weights);
      metrics['losses/entropy'] = sampled.entropy;
    }
  }
  const pad = (item: Item, row: readonly number[]) => [...new Array(item.context.length - 1).fill(0), ...row];
  const data: Datum[] = batch.map((item, index) => ({
    tokens: [...item.context, ...item.completion],
    weights: pad(item, weights[index]),
    ...(entropyWeights && { entropyWeights: pad(item, entropyWeights[index]) }),
  }));
  const pass = await policy.forwardBackward(data, 'linear');
  if (entropyWeights && pass.entropies) {
    metrics['losses/entropy'] = meanEntropy(
      pass.entropies.map((row, index) => row.slice(batch[index].context.length - 1)),
      masks,
    );
  }
  const optim = await policy.optimStep({
    learningRate,
    betas: config.train.betas,
    eps: config.train.eps,
    weightDecay: config.train.weightDecay,
    gradClip: config.train.gradClip,
  });
  metrics['train/grad_norm'] = optim.gradNorm;
  const trainerMeasured =
    onPolicy && pass.logprobs?.length === batch.length
      ? batch.map((item, index) => ({
          trainerLogprobs: pass.logprobs[index].slice(item.context.length - 1),
          samplerLogprobs: item.samplerLogprobs,
          ...(item.lossMask && { mask: item.lossMask }),
        }))
      : [];
  return { metrics, trainerMeasured };
}
