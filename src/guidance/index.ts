// The guidance registry: config names resolve here. Each entry is a plug-in (./define.ts) whose
// `create(options, context)` validates its options. `createGuidanceRegistry()` builds a fresh, filled
// instance; `guidances` is the default one, filled on first use (importing this file registers nothing).
import { Registry } from '../core/registry.ts';
import { ampoGuidance } from './ampo.ts';
import type { GuidancePlugin } from './define.ts';
import type { GuidanceFactory } from './guidance.ts';
import { hintsGuidance } from './hints.ts';
import { identityGuidance } from './identity.ts';
import { offPolicyPrefixGuidance } from './off-policy-prefix.ts';
import { oraclePrefixGuidance } from './oracle-prefix.ts';
import { privilegedHintGuidance } from './privileged-hint.ts';
import { retryGuidance } from './retry.ts';
import { rubricScaffoldGuidance } from './rubric-scaffold.ts';

/** The built-in scaffolds. */
export const builtinGuidances: readonly GuidancePlugin[] = [
  identityGuidance,
  hintsGuidance,
  oraclePrefixGuidance,
  offPolicyPrefixGuidance,
  privilegedHintGuidance,
  retryGuidance,
  rubricScaffoldGuidance,
  ampoGuidance,
];

function fillGuidances(registry: Registry<GuidanceFactory>): void {
  for (const plugin of builtinGuidances) registry.add(plugin);
}

/** A fresh guidance registry holding the built-ins. */
export function createGuidanceRegistry(): Registry<GuidanceFactory> {
  return new Registry<GuidanceFactory>('guidance', fillGuidances);
}

/** The default guidance registry (the loop's and src/api/register.ts's), filled on first use. */
export const guidances: Registry<GuidanceFactory> = createGuidanceRegistry();

export { defineGuidance, type GuidancePlugin } from './define.ts';
export type {
  Attempt,
  ExpertTrace,
  Guidance,
  GuidanceContext,
  GuidanceFactory,
  PrivilegedScorer,
} from './guidance.ts';
export type { GradedGroup, RetryHook, RetryRequest, RetryResult } from './retry-contract.ts';
export type {
  TeacherHelpHook,
  TeacherHelpTools,
  TeacherReplacement,
  TeacherWriters,
} from './teacher-help-contract.ts';
