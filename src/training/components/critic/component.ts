// Run component `critic`: PPO's learned value model for GAE (`algorithm.advantage: { name: gae }` with the
// `algorithm.critic` block; critic-round.ts, src/policy/value-model.ts). The critic is a separate embedded
// transformer with a scalar head, started from the run's init checkpoint (or `algorithm.critic.checkpoint`)
// with a fresh head; it scores the batch before the policy update (its per-token GAE advantages replace
// the scalar estimate) and trains after it; its weights, head and optimizer are saved in every checkpoint
// (components/critic/model) and a resumed run loads them from there.
//
// Backends: the policy must be the embedded one. The critic reads the policy's token ids, so it needs a
// model over the same vocabulary on this machine; over the Tinker protocol a value head would have to be
// the server's (Tinker's LossFnType has none; SkyRL's Tinker-compatible server adds loss_fn ppo_critic),
// which Curricula's client does not drive. Refused with a reason at config time, as are the features that
// also answer the step's per-token advantages (a multi-turn environment, teacher.opd).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../core/errors.ts';
import { ValueModel } from '../../../policy/value-model.ts';
import type { RlContext } from '../../rl/context.ts';
import { type BuiltComponent, defineRlComponent, findComponent } from '../definition.ts';
import { CriticRound } from './critic-round.ts';

export interface CriticComponent extends BuiltComponent {
  readonly round: CriticRound;
}

export const criticComponent = defineRlComponent({
  id: 'critic',
  block: 'algorithm.critic',
  description:
    'critic: a learned value model (separate embedded transformer + scalar head) for GAE advantages, trained on the clipped value loss (PPO)',
  validate(config) {
    const critic = config.algorithm.critic;
    const gae = config.algorithm.advantage.name === 'gae';
    if (gae && !critic) {
      throw new ConfigError(
        "algorithm.advantage 'gae' needs a value model: add an algorithm.critic block (e.g. algorithm.critic: {})",
      );
    }
    if (!critic) return;
    if (!gae) {
      throw new ConfigError(
        `algorithm.critic is set but algorithm.advantage is '${config.algorithm.advantage.name}': the critic's values are used by 'gae' only`,
      );
    }
    if ((config.policy?.backend ?? 'embedded') !== 'embedded') {
      throw new ConfigError(
        'algorithm.critic: the value model is an embedded model over the policy token ids; it runs with policy.backend embedded only (the Tinker protocol has no value head)',
      );
    }
    if (config.rollout.environment) {
      throw new ConfigError(
        'algorithm.critic: multi-turn environments (rollout.environment) are not supported with GAE yet: their observation tokens carry no loss and the environment answers the per-token advantages itself',
      );
    }
    if (config.teacher?.opd) {
      throw new ConfigError(
        'algorithm.critic: on-policy distillation (teacher.opd) also sets per-token advantages; use one of the two',
      );
    }
  },
  async create({ config, request, resumeCheckpoint }): Promise<CriticComponent | null> {
    const options = config.algorithm.critic;
    if (!options) return null;
    const saved = resumeCheckpoint ? join(resumeCheckpoint, 'components', 'critic', 'model') : null;
    const start = saved && existsSync(saved) ? saved : (options.checkpoint ?? request.init);
    if (!start) {
      throw new ConfigError(
        'algorithm.critic needs a checkpoint to start its value model from: set init.checkpoint or algorithm.critic.checkpoint',
      );
    }
    const critic = await ValueModel.load(start, options.seed ?? config.seed);
    const round = new CriticRound(critic, options, options.epochs ?? config.algorithm.epochs);
    return {
      id: 'critic',
      round,
      hooks: {
        advantageTerms: async ({ timer }, groups, estimate) =>
          timer.time('critic_values', () => round.advantages(groups, estimate)),
        afterUpdate: async ({ timer }) => {
          timer.time('critic_train', () => round.train());
          return {};
        },
      },
      metrics: () => round.metrics(),
      saveModels: async (dir) => critic.save(join(dir, 'model')),
      close: async () => critic.dispose(),
    };
  },
});

/** The run's critic component, when the algorithm.critic block is set. */
export function criticOf(ctx: Pick<RlContext, 'components'>): CriticComponent | undefined {
  return findComponent<CriticComponent>(ctx.components, 'critic');
}
