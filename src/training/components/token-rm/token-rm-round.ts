// What OREAL's token-level reward model does in a step (component.ts): before the update it scores every
// trained completion, and each token's advantage becomes A·w_t with OREAL's weight w_t
// (token-weights.ts) — with loss `oreal` that is the authors' −f⁺·A·w⁺_t·log π on correct samples and
// −f⁻·A·w⁻_t·log π on wrong ones, as their `_positive_loss * _pos_weight` and `_advantages * _neg_weight`;
// after the update the model takes one AdamW step on the sequence-mean BCE against the outcome, on the
// same completions (the authors' token_level_rm_loss, computed in the same pass with the weights from the
// model before its step). Metrics: tokenrm/loss, tokenrm/grad_norm, tokenrm/accuracy (share of
// completions whose mean score has the label's sign, at scoring), tokenrm/weight_mean_positive and
// tokenrm/weight_mean_negative (mean w over the tokens of correct and of wrong samples).
import type { AdvantageEstimate } from '../../../algorithms/advantages/estimator.ts';
import type { ScoreRow, ValueModel } from '../../../policy/value-model.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { scoreTrainedCompletions } from '../trained-completions.ts';
import type { TokenRewardModelOptions } from './token-rm-options.ts';
import { orealTokenWeights } from './token-weights.ts';

/** Largest padded micro-batch of the model's passes (the embedded backend's default). */
const tokenBudget = 4096;

const mean = (values: readonly number[]) =>
  values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;

export class TokenRewardRound {
  private pending: ScoreRow[] = [];
  private stepMetrics: Record<string, number> = {};

  constructor(
    readonly model: ValueModel,
    private readonly options: TokenRewardModelOptions,
  ) {}

  /** Per-token advantages A·w_t [group][sample] (undefined where a sample is not trained). */
  advantages(groups: readonly SampledGroup[], estimate: AdvantageEstimate): (number[] | undefined)[][] {
    const {
      places,
      sequences,
      scores: allScores,
    } = scoreTrainedCompletions(groups, estimate, (batch) => this.model.values(batch, tokenBudget));
    const result: (number[] | undefined)[][] = groups.map((group) => group.rollouts.map(() => undefined));
    const rows: ScoreRow[] = [];
    const positive: number[] = [];
    const negative: number[] = [];
    let agreed = 0;
    places.forEach(({ g, i }, k) => {
      const start = groups[g].context.length - 1;
      const length = groups[g].rollouts[i].tokens.length;
      const scores = allScores[k].slice(start, start + length);
      const correct = groups[g].rewards[i] >= this.options.positiveReward;
      const weights = orealTokenWeights(scores, correct, this.options);
      const advantage = estimate.advantages[g][i];
      result[g][i] = weights.map((weight) => advantage * weight);
      (correct ? positive : negative).push(...weights);
      if (mean(scores) > 0 === correct) agreed++;
      rows.push({ tokens: sequences[k], start, length, label: correct ? 1 : 0 });
    });
    this.pending = rows;
    this.stepMetrics = {
      'tokenrm/accuracy': rows.length > 0 ? agreed / rows.length : 0,
      'tokenrm/weight_mean_positive': mean(positive),
      'tokenrm/weight_mean_negative': mean(negative),
    };
    return result;
  }

  /** One step of the model on this step's completions and outcomes. */
  train(): void {
    const result = this.model.trainSequenceBce(this.pending, {
      learningRate: this.options.learningRate,
      gradClip: this.options.gradClip,
      weightDecay: this.options.weightDecay,
      tokenBudget,
    });
    this.pending = [];
    Object.assign(this.stepMetrics, { 'tokenrm/loss': result.loss, 'tokenrm/grad_norm': result.gradNorm });
  }

  metrics(): Record<string, number> {
    return { ...this.stepMetrics };
  }
}
