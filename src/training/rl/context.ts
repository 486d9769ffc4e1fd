// Everything one RL step needs, resolved from the config once at start-up.

import type { AdvantageEstimator } from '../../algorithms/advantages/estimator.ts';
import type { PolicyLoss } from '../../algorithms/losses/policy-loss.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import type { Reward } from '../../core/reward.ts';
import type { Rng } from '../../core/rng.ts';
import type { TaskSelector } from '../../core/selector.ts';
import type { Guidance } from '../../guidance/guidance.ts';
import type { SelfPlay } from '../../selfplay/round.ts';
import type { Teachers } from '../../teachers/teacher-pool.ts';
import type { RlConfig } from './config.ts';
import type { Distillation } from './distillation.ts';
import type { PoolFileRecord } from './pool-file.ts';
import type { Relift } from './relift.ts';
import type { RolloutBudget } from './rollout-budget.ts';

export interface RlContext {
  config: RlConfig;
  policy: PolicyBackend;
  /** Frozen reference policy for the KL term; null when algorithm.kl.coefficient is 0. */
  reference: PolicyBackend | null;
  selector: TaskSelector;
  /** Problems in the selector's pool (after de-duplication; can be below config.poolSize). */
  poolSize: number;
  /** Samples per problem when rollout.budget is enabled; null = groupSize for every problem. */
  budget: RolloutBudget | null;
  guidance: Guidance;
  /** ReLIFT's SFT phase after each RL update (relift.ts); absent or null when algorithm.relift is off. */
  relift?: Relift | null;
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
  /** The run's teachers (teacher.pool, a privileged scorer's self-teacher); absent or null = none. */
  teachers?: Teachers | null;
  /** The distillation phase's settings (teacher.opd or privileged-hint); absent or null = no phase. */
  distillation?: Distillation | null;
  /** Self-play's generated pool and settings (src/selfplay); absent or null when selfPlay is off. */
  selfPlay?: SelfPlay | null;
}
