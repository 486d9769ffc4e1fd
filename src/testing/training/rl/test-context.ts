// Test support for rlStep tests with a stub policy and reward: the RlContext of a one-step run on two
// 1-digit addition problems (uniform selector, identity guidance, the config's advantage and loss).
import { advantageEstimators } from '../../../algorithms/advantages/index.ts';
import { policyLosses } from '../../../algorithms/losses/index.ts';
import type { PolicyBackend } from '../../../core/policy.ts';
import type { Reward } from '../../../core/reward.ts';
import { Rng } from '../../../core/rng.ts';
import { selectors } from '../../../curricula/index.ts';
import { guidances } from '../../../guidance/index.ts';
import { additionProblem } from '../../../tasks/addition.ts';
import { rlConfigSchema } from '../../../training/rl/config.ts';
import type { RlContext } from '../../../training/rl/context.ts';

export interface StubContextOptions {
  policy: PolicyBackend;
  reward: Reward;
  groupSize: number;
  /** The config's `algorithm` block (advantage and loss by name, filters). */
  algorithm: object;
  /** Options given to the loss's resolveOptions (default {}). */
  lossOptions?: object;
}

export function stubRlContext(options: StubContextOptions): RlContext {
  const config = rlConfigSchema.parse({
    tasks: [{ task: 'addition', difficulties: [1] }],
    rollout: { groupSize: options.groupSize },
    algorithm: options.algorithm,
    train: { steps: 1, batchSize: 2, learningRate: 1e-3 },
  });
  const pool = [additionProblem('1', '2'), additionProblem('3', '4')];
  const advantage = advantageEstimators.get(config.algorithm.advantage.name);
  const loss = policyLosses.get(config.algorithm.loss.name);
  return {
    config,
    policy: options.policy,
    reference: null,
    selector: selectors.get('uniform')(pool, {}, { totalSteps: 1 }),
    poolSize: pool.length,
    guidance: guidances.get('identity')({}),
    reward: options.reward,
    advantage,
    advantageOptions: advantage.resolveOptions({}),
    loss,
    lossOptions: loss.resolveOptions(options.lossOptions ?? {}),
    rng: new Rng(3),
    components: [],
  };
}
