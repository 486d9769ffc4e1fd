// What the critic does in a step (component.ts): before the update, the value model scores every trained
// completion; GAE (src/algorithms/advantages/gae.ts) turns each completion's reward and values into
// per-token advantages and returns, whitened over the batch, which replace the scalar estimate in the
// policy loss; after the update, the value model takes `epochs` steps on the clipped value loss towards
// those returns (the values at sampling are what clipping is relative to). Metrics follow verl's names:
// critic/vf_loss, critic/vf_clipfrac, critic/vpred_mean, critic/returns_mean, critic/vf_explained_var
// (1 − Var(R − V)/Var(R) over the batch's tokens at sampling), critic/grad_norm.
import type { AdvantageEstimate } from '../../../algorithms/advantages/estimator.ts';
import { gae, whiten } from '../../../algorithms/advantages/gae.ts';
import type { ValueModel, ValueRow } from '../../../policy/value-model.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { scoreTrainedCompletions } from '../trained-completions.ts';
import type { CriticOptions } from './critic-options.ts';

/** Largest padded micro-batch of the critic's passes (the embedded backend's default). */
const tokenBudget = 4096;

function variance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
}

export class CriticRound {
  private pending: ValueRow[] = [];
  private stepMetrics: Record<string, number> = {};

  constructor(
    readonly critic: ValueModel,
    private readonly options: CriticOptions,
    private readonly epochs: number,
  ) {}

  /** Per-token GAE advantages [group][sample] (undefined where a sample is not trained). */
  advantages(groups: readonly SampledGroup[], estimate: AdvantageEstimate): (number[] | undefined)[][] {
    const {
      places,
      sequences,
      scores: allValues,
    } = scoreTrainedCompletions(groups, estimate, (batch) => this.critic.values(batch, tokenBudget));
    const rows: ValueRow[] = [];
    const raw: number[][] = [];
    places.forEach(({ g, i }, k) => {
      const start = groups[g].context.length - 1;
      const values = allValues[k].slice(start);
      const result = gae(groups[g].rewards[i], values, this.options.gamma, this.options.lambda);
      raw.push(result.advantages);
      rows.push({ tokens: sequences[k], start, returns: result.returns, oldValues: values });
    });
    const advantages = this.options.whiten ? whiten(raw) : raw;
    this.pending = rows;
    const values = rows.flatMap((row) => row.oldValues);
    const returns = rows.flatMap((row) => row.returns);
    const residual = returns.map((value, t) => value - values[t]);
    const mean = (list: readonly number[]) =>
      list.length > 0 ? list.reduce((sum, value) => sum + value, 0) / list.length : 0;
    const returnVariance = variance(returns);
    this.stepMetrics = {
      'critic/vpred_mean': mean(values),
      'critic/returns_mean': mean(returns),
      'critic/vf_explained_var': returnVariance > 0 ? 1 - variance(residual) / returnVariance : 0,
    };
    const result: (number[] | undefined)[][] = groups.map((group) => group.rollouts.map(() => undefined));
    places.forEach(({ g, i }, k) => {
      result[g][i] = advantages[k];
    });
    return result;
  }

  /** The value model's steps on this step's returns. */
  train(): void {
    let loss = 0;
    let clipfrac = 0;
    let gradNorm = 0;
    for (let epoch = 0; epoch < this.epochs; epoch++) {
      const result = this.critic.train(this.pending, {
        learningRate: this.options.learningRate,
        valueClip: this.options.valueClip,
        gradClip: this.options.gradClip,
        weightDecay: this.options.weightDecay,
        tokenBudget,
      });
      loss += result.loss;
      clipfrac += result.clipfrac;
      gradNorm += result.gradNorm;
    }
    this.pending = [];
    Object.assign(this.stepMetrics, {
      'critic/vf_loss': loss / this.epochs,
      'critic/vf_clipfrac': clipfrac / this.epochs,
      'critic/grad_norm': gradNorm / this.epochs,
    });
  }

  metrics(): Record<string, number> {
    return { ...this.stepMetrics };
  }
}
