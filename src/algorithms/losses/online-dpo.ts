// Online DPO: the DPO loss on pairs drawn from the policy's own samples, ranked by the run's reward. In
// each group (the samples of one prompt) whose rewards differ, the first best sample is chosen (y_w) and
// the first worst rejected (y_l); with sequence log-ratios to the reference Δ(y) = Σ_t (logp − logp_ref),
//   z = β·(Δ(y_w) − Δ(y_l)),    L = (1/P) Σ_pairs −log σ(z),
//   ∂L/∂logp_t = β·(σ(z) − 1)/P on y_w's tokens and β·(1 − σ(z))/P on y_l's; every other sample gets 0.
// Papers: "Direct Preference Optimization" (Rafailov et al. 2023), arXiv 2305.18290, eq. 7; online pairs:
// "Direct Language Model Alignment from Online AI Feedback" (Guo et al. 2024), arXiv 2402.04792.
// Reference: TRL OnlineDPOTrainer (trl/trainer/online_dpo_trainer.py, loss_type sigmoid, β 0.1), read for
// the formula and defaults; none of it copied. The reference policy is the run's initial one (setup loads
// it for this loss, requireReference), as TRL's ref_model.
// Deviations: TRL samples two completions per prompt and ranks them with a judge or reward model; here a
// group of G samples gives one pair, its best and worst by the run's reward (ties: the first); groups with
// all-equal rewards give none. The pair must be in one compute() call, so algorithm.minibatches must be 1
// (refused at config time otherwise). `aggregation`/`tokenSumNormaliser` only shape a KL or entropy term
// added to this loss (the pair loss is a mean over pairs). The advantage estimate is not used.
import { z } from 'zod';
import { parseOptions } from '../options.ts';
import {
  aggregationOptionsShape,
  type LossSequence,
  type PolicyLoss,
  type PolicyLossResult,
} from './policy-loss.ts';

export const onlineDpoOptionsSchema = z.strictObject({
  ...aggregationOptionsShape,
  /** β: the inverse temperature of the implicit reward (TRL: 0.1). */
  beta: z.number().positive().default(0.1),
});
export type OnlineDpoOptions = z.output<typeof onlineDpoOptionsSchema>;

/** The (chosen, rejected) sequence indices of each group whose rewards differ. */
export function preferencePairs(sequences: readonly LossSequence[]): [number, number][] {
  const byGroup = new Map<number, number[]>();
  sequences.forEach((sequence, index) => {
    if (sequence.group === undefined || sequence.reward === undefined) {
      throw new RangeError(`sequence ${index}: loss 'online-dpo' needs each sequence's group and reward`);
    }
    if (!byGroup.has(sequence.group)) byGroup.set(sequence.group, []);
    byGroup.get(sequence.group)!.push(index);
  });
  const pairs: [number, number][] = [];
  for (const members of byGroup.values()) {
    let best = members[0];
    let worst = members[0];
    for (const index of members) {
      if (sequences[index].reward! > sequences[best].reward!) best = index;
      if (sequences[index].reward! < sequences[worst].reward!) worst = index;
    }
    if (sequences[best].reward! > sequences[worst].reward!) pairs.push([best, worst]);
  }
  return pairs;
}

/** Σ_t mask·(logp − logp_ref) of one sequence. */
function referenceLogRatio(sequence: LossSequence, index: number): number {
  if (!sequence.refLogprobs || sequence.refLogprobs.length !== sequence.logprobs.length) {
    throw new RangeError(`sequence ${index}: loss 'online-dpo' needs the reference policy's log-probs`);
  }
  let sum = 0;
  sequence.logprobs.forEach((logprob, t) => {
    if (sequence.mask[t] !== 0) sum += logprob - sequence.refLogprobs![t];
  });
  return sum;
}

const logSigmoid = (x: number) => (x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x)));
const sigmoid = (x: number) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));

export function onlineDpoLoss(
  sequences: readonly LossSequence[],
  options: OnlineDpoOptions,
): PolicyLossResult {
  const weights = sequences.map((sequence) => sequence.logprobs.map(() => 0));
  const pairs = preferencePairs(sequences);
  let loss = 0;
  let correct = 0;
  let margins = 0;
  let tokens = 0;
  for (const [chosen, rejected] of pairs) {
    const margin =
      referenceLogRatio(sequences[chosen], chosen) - referenceLogRatio(sequences[rejected], rejected);
    const zValue = options.beta * margin;
    loss -= logSigmoid(zValue) / pairs.length;
    if (zValue > 0) correct++;
    margins += margin;
    const slope = (options.beta * (sigmoid(zValue) - 1)) / pairs.length;
    for (const [index, sign] of [
      [chosen, 1],
      [rejected, -1],
    ] as const) {
      sequences[index].mask.forEach((m, t) => {
        if (m === 0) return;
        weights[index][t] = sign * slope;
        tokens++;
      });
    }
  }
  const perPair = (value: number) => (pairs.length > 0 ? value / pairs.length : 0);
  return {
    weights,
    loss,
    metrics: {
      'losses/policy': loss,
      'losses/tokens': tokens,
      'losses/dpo_pairs': pairs.length,
      'losses/dpo_accuracy': perPair(correct),
      'losses/dpo_margin': perPair(margins),
    },
  };
}

const WHERE = "loss 'online-dpo'";

export const onlineDpo: PolicyLoss<OnlineDpoOptions> = {
  kind: 'loss',
  id: 'online-dpo',
  name: 'online-dpo',
  description:
    "DPO on each group's best and worst sample by the run's reward, against the initial policy as reference (online DPO)",
  paper: {
    title: 'Direct Language Model Alignment from Online AI Feedback (DPO: arXiv 2305.18290)',
    arxiv: '2402.04792',
    code: 'huggingface/trl online_dpo_trainer.py',
  },
  optionsSchema: onlineDpoOptionsSchema,
  resolveOptions: (raw) => parseOptions(onlineDpoOptionsSchema, raw, WHERE) as OnlineDpoOptions,
  compute: (sequences, options) => onlineDpoLoss(sequences, onlineDpo.resolveOptions(options)),
  requireReference: true,
  requireWholeGroups: true,
};
