// Run component `relift`: ReLIFT's SFT phase after each RL update (components/relift/relift.ts): failed problems into
// the buffer, an SFT update when it is full; buffer and count saved under the checkpoint key `relift`.

import type { RlContext } from '../../rl/context.ts';
import { type BuiltComponent, defineRlComponent, findComponent } from '../definition.ts';
import { createRelift, type Relift, validateRelift } from './relift.ts';

export interface ReliftComponent extends BuiltComponent {
  readonly relift: Relift;
}

export const reliftComponent = defineRlComponent({
  id: 'relift',
  block: 'algorithm.relift',
  paper: {
    title: "Learning What Reinforcement Learning Can't: Interleaved Online Fine-Tuning for Hardest Questions",
    arxiv: '2506.07527',
    code: 'TheRoadQaQ/ReLIFT',
  },
  validate: validateRelift,
  description: 'algorithm.relift: SFT on the solutions of problems the policy failed (ReLIFT)',
  // The demonstration source refuses a pool it cannot serve (no worked solutions) before any model.
  check: ({ config, pool, source }) => void createRelift(config, { pool, source }),
  create({ config, pool, source }): ReliftComponent | null {
    const relift = createRelift(config, { pool, source });
    if (!relift) return null;
    return {
      id: 'relift',
      relift,
      hooks: {
        afterUpdate: ({ ctx, step, learningRate, timer }, sampledAll) =>
          timer.timeAsync('relift', () => relift.afterRl(ctx, sampledAll, step, learningRate)),
      },
      state: () => relift.state(),
      load: (saved) => relift.load(saved),
    };
  },
});

/** The run's ReLIFT phase, when algorithm.relift is on. */
export function reliftOf(ctx: Pick<RlContext, 'components'>): Relift | undefined {
  return findComponent<ReliftComponent>(ctx.components, 'relift')?.relift;
}
