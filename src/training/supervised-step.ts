// One supervised (SFT) optimiser step, shared by `curricula pretrain` and `curricula distill`: the
// per-token weights are scaled to a mean cross-entropy per completion token (1 / tokens with weight > 0
// across the batch), one forward_backward with the cross_entropy loss, then one AdamW step at the
// schedule's learning rate for `step`. The data given is not modified.
import type { z } from 'zod';
import type { Datum, PolicyBackend } from '../core/policy.ts';
import type { optimizerSchema } from './pretrain-config.ts';
import { learningRateAt } from './schedule.ts';

export type OptimizerConfig = z.output<typeof optimizerSchema>;

export interface SupervisedStepResult {
  loss: number;
  learningRate: number;
  gradNorm: number;
}

export async function supervisedStep(
  backend: PolicyBackend,
  data: readonly Datum[],
  train: OptimizerConfig,
  step: number,
  totalSteps: number,
): Promise<SupervisedStepResult> {
  const weighted = data.reduce((sum, datum) => sum + datum.weights.filter((w) => w > 0).length, 0);
  const scaled = data.map((datum) => ({
    tokens: datum.tokens,
    weights: datum.weights.map((w) => w / weighted),
  }));
  const result = await backend.forwardBackward(scaled, 'cross_entropy');
  const learningRate = learningRateAt(train, step, totalSteps);
  const optim = await backend.optimStep({
    learningRate,
    betas: train.betas,
    eps: train.eps,
    weightDecay: train.weightDecay,
    gradClip: train.gradClip,
  });
  return { loss: result.loss, learningRate, gradNorm: optim.gradNorm };
}
