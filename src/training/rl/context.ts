// Everything one RL step needs, resolved from the config once at start-up. The optional features are run
// components (component.ts; built by src/training/components/); this file imports none of them.
import type { AdvantageEstimator } from '../../algorithms/advantages/estimator.ts';
import type { PolicyLoss } from '../../algorithms/losses/policy-loss.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import type { Reward } from '../../core/reward.ts';
import type { Rng } from '../../core/rng.ts';
import type { TaskSelector } from '../../core/selector.ts';
import type { Guidance } from '../../guidance/guidance.ts';
import type { RunComponent, StepHooks, StepScopeOf } from './component.ts';
import type { RlConfig } from './config.ts';
import type { PoolFileRecord } from './pool-file.ts';

export interface RlContext {
  config: RlConfig;
  policy: PolicyBackend;
  /** Frozen reference policy for the KL term; null when algorithm.kl.coefficient is 0 and kl.monitor is off. */
  reference: PolicyBackend | null;
  selector: TaskSelector;
  /** Problems in the selector's pool (after de-duplication; can be below config.poolSize). */
  poolSize: number;
  guidance: Guidance;
  reward: Reward;
  advantage: AdvantageEstimator;
  advantageOptions: unknown;
  loss: PolicyLoss;
  lossOptions: unknown;
  /** The run's random stream (problem choice, sampling seeds); saved with checkpoints. */
  rng: Rng;
  /** Setup's advice for a new run (e.g. levels whose solutions rollout.maxTokens cuts; level-fit.ts). */
  advice?: string[];
  /** The pool file and its sha256, when the pool came from `pool.file` (recorded; checked on resume). */
  poolFile?: PoolFileRecord;
  /** The run's components, in registration order (src/training/components/index.ts); [] = none. */
  components: readonly RlComponent[];
}

/** An RL run component: the hook contract of component.ts over this context. */
export type RlComponent = RunComponent<RlContext>;
export type StepScope = StepScopeOf<RlContext>;
export type RlStepHooks = StepHooks<RlContext>;
