// Conformance of a policy loss (./policy-loss.ts): the checks every registered loss passes (losses.test.ts
// runs this on each, under every aggregation) and a user's loss can be run through (`checkLoss` in
// src/api/testing.ts): the per-token weights it returns are the derivative of its scalar loss with
// respect to each token's log-prob (central finite differences, h = 1e-5, to 1e-8 + 1e-5·|numeric|), zero
// on masked tokens, one row per sequence of the sequence's length; the loss and metrics are finite; and an
// all-masked batch gives loss 0, zero weights and no NaN metric.
import { Checker, type ConformanceReport, preview } from '../../core/conformance.ts';
import { Rng } from '../../core/rng.ts';
import type { LossSequence, PolicyLoss } from './policy-loss.ts';

/** Options of checkLoss. */
export interface LossCheckOptions {
  /** Option objects to check the loss under (default: [undefined], the loss's defaults). */
  options?: readonly unknown[];
  /**
   * Move log π_old together with log π in the finite differences, for a loss whose importance ratio is a
   * stop-gradient (CISPO's clipped ratio): the derivative is then taken at a fixed ratio.
   */
  moveOldLogprobs?: boolean;
  /**
   * One advantage per sequence in the batch (the third sequence's per-token advantages replaced by one),
   * for a sequence-level loss (GSPO), which is defined for them: with per-token advantages its token form
   * differentiates a surrogate, not its reported value.
   */
  sequenceAdvantages?: boolean;
  /**
   * Give each sequence a reward and its group's rewards (one group: 1, 0, 1), for a loss defined on them
   * (NFT).
   */
  rewards?: boolean;
  /**
   * Give each sequence a group (0, 0, 1), a reward (1, 0, 1) and reference log-probs, for a loss on pairs
   * within a group (online DPO): sequences 0 and 1 are a pair, sequence 2 has none.
   */
  pairs?: boolean;
}

/**
 * Three sequences of different lengths: per-token and broadcast advantages, masked tokens, off-policy
 * tokens, log-ratios spread over every clip region (incl. r ≈ 4.5 with A < 0 for a dual clip).
 */
export function conformanceBatch(
  seed = 7,
  sequenceAdvantages = false,
  rewards = false,
  pairs = false,
): LossSequence[] {
  const rng = new Rng(seed);
  const logRatios = [
    [0.1, 0.22, -0.4, 0.6],
    [-0.5, 1.5],
    [0.05, -0.3, 0.3, -0.05, 0.7],
  ];
  const masks = [
    [1, 1, 1, 1],
    [1, 1],
    [0, 1, 1, 1, 0],
  ];
  const advantages: (number | number[])[] = [
    1.3,
    -0.8,
    sequenceAdvantages ? -0.6 : [0.5, -1.2, 0.9, -0.4, 2],
  ];
  return logRatios.map((ratios, i) => {
    const oldLogprobs = ratios.map(() => -0.2 - 2 * rng.next());
    return {
      logprobs: ratios.map((logRatio, t) => oldLogprobs[t] + logRatio),
      oldLogprobs,
      advantages: advantages[i],
      mask: masks[i],
      offPolicy: ratios.map((_, t) => i === 0 && t % 2 === 1),
      ...(rewards && { reward: [1, 0, 1][i], groupRewards: [1, 0, 1] }),
      ...(pairs && {
        group: [0, 0, 1][i],
        reward: [1, 0, 1][i],
        refLogprobs: oldLogprobs.map((value, t) => value - 0.1 * (t + 1)),
      }),
    };
  });
}

function perturb(
  sequences: LossSequence[],
  i: number,
  t: number,
  h: number,
  alsoOld: boolean,
): LossSequence[] {
  return sequences.map((sequence, j) => {
    if (j !== i) return sequence;
    const shift = (values: readonly number[]) => values.map((value, s) => (s === t ? value + h : value));
    return {
      ...sequence,
      logprobs: shift(sequence.logprobs),
      oldLogprobs: alsoOld && sequence.oldLogprobs ? shift(sequence.oldLogprobs) : sequence.oldLogprobs,
    };
  });
}

/** Runs a loss through the contract; throws ConformanceError at the first broken property. */
export function checkLoss(loss: PolicyLoss, options: LossCheckOptions = {}): ConformanceReport {
  const check = new Checker(`loss '${loss?.name}'`);
  check.that(typeof loss === 'object' && loss !== null, 'is an object');
  check.that(typeof loss.name === 'string' && loss.name.length > 0, 'has a name');
  check.that(typeof loss.compute === 'function', 'has a compute() method');
  const h = 1e-5;
  for (const lossOptions of options.options ?? [undefined]) {
    const under = lossOptions === undefined ? '' : ` under ${preview(lossOptions)}`;
    const batch = conformanceBatch(
      7,
      options.sequenceAdvantages ?? false,
      options.rewards ?? false,
      options.pairs ?? false,
    );
    const result = check.call(`compute()${under}`, () => loss.compute(batch, lossOptions));
    check.that(
      Array.isArray(result?.weights) &&
        result.weights.length === batch.length &&
        result.weights.every((row, i) => row?.length === batch[i].logprobs.length),
      'compute() returns one weight per token of each sequence',
      () => preview(result?.weights),
    );
    check.that(Number.isFinite(result.loss), 'the loss is finite', () => `${result.loss}${under}`);
    for (const [key, value] of Object.entries(result.metrics ?? {})) {
      check.that(Number.isFinite(value), 'every metric is finite', () => `${key} = ${value}${under}`);
    }
    for (let i = 0; i < batch.length; i++) {
      for (let t = 0; t < batch[i].logprobs.length; t++) {
        const plus = loss.compute(
          perturb(batch, i, t, h, options.moveOldLogprobs ?? false),
          lossOptions,
        ).loss;
        const minus = loss.compute(
          perturb(batch, i, t, -h, options.moveOldLogprobs ?? false),
          lossOptions,
        ).loss;
        const numeric = (plus - minus) / (2 * h);
        const weight = result.weights[i][t];
        check.that(
          Math.abs(weight - numeric) <= 1e-8 + 1e-5 * Math.abs(numeric),
          'each weight is the derivative of the loss with respect to its token log-prob',
          () => `sequence ${i}, token ${t}: weight ${weight}, finite difference ${numeric}${under}`,
        );
        if (batch[i].mask[t] === 0) {
          check.that(
            weight === 0,
            'a masked token has weight 0',
            () => `sequence ${i}, token ${t}: ${weight}`,
          );
        }
      }
    }
    const masked: LossSequence[] = [
      {
        logprobs: [-1, -2],
        oldLogprobs: [-1, -1],
        advantages: 1,
        mask: [0, 0],
        ...(options.rewards && { reward: 1, groupRewards: [1, 0] }),
        ...(options.pairs && { group: 0, reward: 1, refLogprobs: [-1, -1] }),
      },
    ];
    const empty = check.call(`compute(all-masked batch)${under}`, () => loss.compute(masked, lossOptions));
    check.that(
      empty.loss === 0 && empty.weights.length === 1 && empty.weights[0].every((weight) => weight === 0),
      'an all-masked batch gives loss 0 and zero weights',
      () => `loss ${empty.loss}, weights ${preview(empty.weights)}${under}`,
    );
    for (const [key, value] of Object.entries(empty.metrics ?? {})) {
      check.that(!Number.isNaN(value), 'an all-masked batch gives no NaN metric', () => `${key}${under}`);
    }
  }
  return check.report();
}
