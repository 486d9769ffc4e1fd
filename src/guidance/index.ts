// The guidance registry: config names resolve here.
import { Registry } from '../core/registry.ts';
import { createAmpoGuidance } from './ampo.ts';
import type { GuidanceFactory } from './guidance.ts';
import { createHintsGuidance } from './hints.ts';
import { createIdentityGuidance } from './identity.ts';
import { createOffPolicyPrefixGuidance } from './off-policy-prefix.ts';
import { createOraclePrefixGuidance } from './oracle-prefix.ts';
import { createPrivilegedHintGuidance } from './privileged-hint.ts';
import { createRetryGuidance } from './retry.ts';
import { createRubricScaffoldGuidance } from './rubric-scaffold.ts';

export const guidances = new Registry<GuidanceFactory>('guidance')
  .register('identity', createIdentityGuidance)
  .register('hints', createHintsGuidance)
  .register('oracle-prefix', createOraclePrefixGuidance)
  .register('off-policy-prefix', createOffPolicyPrefixGuidance)
  .register('privileged-hint', createPrivilegedHintGuidance)
  .register('retry', createRetryGuidance)
  .register('rubric-scaffold', createRubricScaffoldGuidance)
  .register('ampo', createAmpoGuidance);

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
