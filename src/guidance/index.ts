// The guidance registry: config names resolve here.
import { Registry } from '../core/registry.ts';
import type { GuidanceFactory } from './guidance.ts';
import { createIdentityGuidance } from './identity.ts';

export const guidances = new Registry<GuidanceFactory>('guidance').register(
  'identity',
  createIdentityGuidance,
);

export type { Attempt, Guidance, GuidanceFactory } from './guidance.ts';
