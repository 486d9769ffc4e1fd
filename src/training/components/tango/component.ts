// Run component `tango`: a generative, process-level verifier trained by RL next to the policy (Tango,
// arXiv 2505.15034; verifier-round.ts). The verifier is an embedded model (the `tango.checkpoint`, else the
// run's init) built beside the policy; it judges after grading and is trained after the policy's update;
// its weights and optimizer are saved in every checkpoint (components/tango/model) and a resumed run
// loads them from there.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../core/errors.ts';
import { policyBackendOf } from '../../policy-backends.ts';
import type { RlContext } from '../../rl/context.ts';
import { type BuiltComponent, defineRlComponent, findComponent } from '../definition.ts';
import { VerifierRound } from './verifier-round.ts';

export interface TangoComponent extends BuiltComponent {
  readonly round: VerifierRound;
}

export const tangoComponent = defineRlComponent({
  id: 'tango',
  block: 'tango',
  description:
    'tango: a generative process verifier trained by RL beside the policy; its step verdicts add a process reward (Tango)',
  validate(config) {
    if (!config.tango) return;
    if ((config.policy?.backend ?? 'embedded') !== 'embedded') {
      throw new ConfigError(
        'tango: the verifier is an embedded model; it runs with policy.backend embedded only',
      );
    }
  },
  async create({ config, request, resumeCheckpoint }): Promise<TangoComponent | null> {
    const options = config.tango;
    if (!options) return null;
    const saved = resumeCheckpoint ? join(resumeCheckpoint, 'components', 'tango', 'model') : null;
    const checkpoint = saved && existsSync(saved) ? saved : (options.checkpoint ?? request.init);
    const verifier = await policyBackendOf(config.policy).build({ ...request, checkpoint, role: 'verifier' });
    const round = new VerifierRound(verifier, options);
    return {
      id: 'tango',
      round,
      hooks: {
        beforeSelect: async () => round.beginStep(),
        afterGrade: ({ ctx, timer }, groups) =>
          timer.timeAsync('tango_judge', () => round.judge(ctx, groups)),
        afterUpdate: async ({ ctx, step, learningRate, timer }) => {
          await timer.timeAsync('tango_train', () => round.train(ctx, step, learningRate));
          return {};
        },
      },
      metrics: () => round.metrics(),
      saveModels: (dir) => verifier.save(join(dir, 'model')),
      close: async () => {
        await verifier.close?.();
      },
    };
  },
});

/** The run's Tango component, when the tango block is set. */
export function tangoOf(ctx: Pick<RlContext, 'components'>): TangoComponent | undefined {
  return findComponent<TangoComponent>(ctx.components, 'tango');
}
