// The policy-loss registry: config names resolve here; an unknown name lists the known ones.
// Each entry is a plug-in of kind 'loss' (defineLoss, ./policy-loss.ts). `createLossRegistry()` builds a
// fresh, filled instance; `policyLosses` is the default one, filled on first use.
import type { PluginInfo } from '../../core/plugin.ts';
import { Registry } from '../../core/registry.ts';
import { cispo } from './cispo.ts';
import { clipCov } from './clip-cov.ts';
import { crossEntropy } from './cross-entropy.ts';
import { gmpo } from './gmpo.ts';
import { gspo } from './gspo.ts';
import { importanceSampling } from './importance-sampling.ts';
import { klCov } from './kl-cov.ts';
import { nft } from './nft.ts';
import { onlineDpo } from './online-dpo.ts';
import { oreal } from './oreal.ts';
import type { PolicyLoss } from './policy-loss.ts';
import { policyShaping } from './policy-shaping.ts';
import { ppoClip } from './ppo-clip.ts';
import { sapo } from './sapo.ts';

export { type AggregationMode, aggregationCoefficients, aggregationModes } from './aggregation.ts';
export {
  type ExpertTermConfig,
  expertTermConfigSchema,
  expertTerms,
  shapedExpertToken,
  withExpertTokens,
} from './expert-tokens.ts';
export {
  addWeights,
  type BatchTerm,
  defineLoss,
  type LossDefinition,
  type LossSequence,
  type PolicyLoss,
  type PolicyLossResult,
} from './policy-loss.ts';

/** The built-in losses. */
export const builtinLosses: readonly PolicyLoss[] = [
  ppoClip,
  importanceSampling,
  cispo,
  gspo,
  gmpo,
  sapo,
  clipCov,
  klCov,
  nft,
  oreal,
  onlineDpo,
  crossEntropy,
  policyShaping,
];

/** The plug-in fields of a loss (one built by defineLoss, or by hand: kind and id filled in). */
export function lossInfo(loss: PolicyLoss): PluginInfo {
  return { ...loss, kind: 'loss', id: loss.id ?? loss.name };
}

/** A fresh policy-loss registry holding the built-ins. */
export function createLossRegistry(): Registry<PolicyLoss> {
  return new Registry<PolicyLoss>('loss', (registry) => {
    for (const loss of builtinLosses) registry.register(loss.name, loss, 'built-in', lossInfo(loss));
  });
}

/** The default registry (the loop's and src/api/register.ts's), filled on first use. */
export const policyLosses = createLossRegistry();
