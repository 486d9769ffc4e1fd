// Run component `selfPlay` (src/selfplay): every selfPlay.every steps, before selection, the policy (or a
// frozen generator) writes problems; admitted ones join a generated pool that the selector draws from
// beside the base pool. With selfPlay.trainGenerator the generator's groups train beside the batch. The
// pool is saved under the checkpoint key `selfPlay` and comes back exactly on resume.
import { generatorGroups } from '../../selfplay/generator-groups.ts';
import { buildSelfPlayGenerator } from '../../selfplay/generator-setup.ts';
import { GeneratedPool } from '../../selfplay/pool.ts';
import { type RoundResult, type SelfPlay, selfPlayRound } from '../../selfplay/round.ts';
import { withGeneratedPool } from '../../selfplay/selector.ts';
import { createSelfPlay, validateSelfPlay } from '../../selfplay/setup.ts';
import type { RlContext } from '../rl/context.ts';
import { type BuiltComponent, defineRlComponent, findComponent } from './definition.ts';

export interface SelfPlayComponent extends BuiltComponent {
  readonly selfPlay: SelfPlay;
}

export const selfPlayComponent = defineRlComponent({
  id: 'selfPlay',
  block: 'selfPlay',
  validate: (config) => void validateSelfPlay(config),
  description: 'selfPlay: the policy writes problems; admitted ones join the pool (Tool-R0)',
  async create({ config, pool }): Promise<SelfPlayComponent | null> {
    const selfPlay = createSelfPlay(config, pool, await buildSelfPlayGenerator(config.selfPlay));
    if (!selfPlay) return null;
    let round: RoundResult | null = null;
    let roundMetrics: Record<string, number> = {};
    return {
      id: 'selfPlay',
      selfPlay,
      selector: (base) => withGeneratedPool(base, pool.length, selfPlay.pool),
      hooks: {
        async beforeSelect({ ctx, step, timer }) {
          round =
            step % selfPlay.config.every === 0
              ? await timer.timeAsync('selfplay', () =>
                  selfPlayRound(selfPlay, ctx.policy, ctx.rng, step, {
                    temperature: ctx.config.rollout.temperature,
                    maxTokens: ctx.config.rollout.maxTokens,
                    perPrompt: selfPlay.config.trainGenerator ? ctx.config.rollout.groupSize : 1,
                  }),
                )
              : null;
          // Taken before selection draws from the pool (as the step reported it before components).
          roundMetrics = round?.metrics ?? selfPlay.pool.metrics();
        },
        extraGroups: ({ step }) =>
          round && selfPlay.config.trainGenerator ? generatorGroups(round.groups, step) : [],
      },
      state: () => selfPlay.pool.state(),
      load(saved) {
        if (saved == null) return;
        selfPlay.pool.replaceWith(GeneratedPool.restore(selfPlay.config.poolLimit, saved));
      },
      metrics: () => roundMetrics,
      close: async () => {
        await selfPlay.generator?.close?.();
      },
    };
  },
});

/** The run's self-play state, when the selfPlay block is given. */
export function selfPlayOf(ctx: Pick<RlContext, 'components'>): SelfPlay | undefined {
  return findComponent<SelfPlayComponent>(ctx.components, 'selfPlay')?.selfPlay;
}
