// The policy-loss registry: config names resolve here; an unknown name lists the known ones.
import { Registry } from '../../core/registry.ts';
import { cispo } from './cispo.ts';
import { crossEntropy } from './cross-entropy.ts';
import { importanceSampling } from './importance-sampling.ts';
import type { PolicyLoss } from './policy-loss.ts';
import { policyShaping } from './policy-shaping.ts';
import { ppoClip } from './ppo-clip.ts';

export { type AggregationMode, aggregationCoefficients, aggregationModes } from './aggregation.ts';
export {
  type ExpertTermConfig,
  expertTermConfigSchema,
  expertTerms,
  shapedExpertToken,
  withExpertTokens,
} from './expert-tokens.ts';
export { addWeights, type LossSequence, type PolicyLoss, type PolicyLossResult } from './policy-loss.ts';

export function createLossRegistry(): Registry<PolicyLoss> {
  return new Registry<PolicyLoss>('loss')
    .register(ppoClip.name, ppoClip)
    .register(importanceSampling.name, importanceSampling)
    .register(cispo.name, cispo)
    .register(crossEntropy.name, crossEntropy)
    .register(policyShaping.name, policyShaping);
}

export const policyLosses = createLossRegistry();
