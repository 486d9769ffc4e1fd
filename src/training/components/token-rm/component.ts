// Run component `token-rm`: OREAL's token-level reward model (`algorithm.tokenRewardModel`; arXiv
// 2502.06781, InternLM/OREAL train_oreal.py with its `w_tokenrm` configs; token-rm-round.ts,
// token-weights.ts). A separate embedded transformer with a scalar head at every position — the critic's
// value model (src/policy/value-model.ts) trained on another loss — started from the run's init (or
// `checkpoint`) with a fresh head; the authors replace the language-model head of a copy of the policy
// with a linear one, the same shape. It weights each trained token's advantage before the update and
// trains after it; saved in every checkpoint (components/token-rm/model) and resumed from there.
//
// With loss `oreal` this is the authors' method whole; with another loss the weights still scale each
// token's advantage (not the authors' pairing). Refused at config time: a remote policy backend (the model
// reads the policy's token ids on this machine; Tinker has no such head), a multi-turn environment,
// teacher.opd and algorithm.critic (each also answers the step's per-token advantages; one decides), and
// loss oreal with multiplyAdvantage false (its cloning term then ignores the advantage that carries w).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../core/errors.ts';
import { ValueModel } from '../../../policy/value-model.ts';
import type { RlContext } from '../../rl/context.ts';
import { type BuiltComponent, defineRlComponent, findComponent } from '../definition.ts';
import { TokenRewardRound } from './token-rm-round.ts';

export interface TokenRewardComponent extends BuiltComponent {
  readonly round: TokenRewardRound;
}

export const tokenRewardComponent = defineRlComponent({
  id: 'token-rm',
  block: 'algorithm.tokenRewardModel',
  paper: {
    title: 'Exploring the Limit of Outcome Reward for Learning Mathematical Reasoning',
    arxiv: '2502.06781',
    code: 'InternLM/OREAL',
  },
  description:
    "OREAL's token-level reward model: a scalar head per position whose running mean weights each token's advantage, trained on the outcome by sequence-mean BCE",
  validate(config) {
    const options = config.algorithm.tokenRewardModel;
    if (!options) return;
    const why = (reason: string): never => {
      throw new ConfigError(`algorithm.tokenRewardModel: ${reason}`);
    };
    if ((config.policy?.backend ?? 'embedded') !== 'embedded') {
      why(
        'the model is an embedded model over the policy token ids; it runs with policy.backend embedded only',
      );
    }
    if (config.rollout.environment) {
      why(
        'multi-turn environments (rollout.environment) answer the per-token advantages themselves; use one of the two',
      );
    }
    if (config.teacher?.opd)
      why('on-policy distillation (teacher.opd) also sets per-token advantages; use one of the two');
    if (config.algorithm.critic)
      why('algorithm.critic (GAE) also sets per-token advantages; use one of the two');
    const loss = config.algorithm.loss as { name: string; options?: Record<string, unknown> };
    if (loss.name === 'oreal' && loss.options?.multiplyAdvantage === false) {
      why(
        "loss 'oreal' with multiplyAdvantage false ignores the advantage of correct samples, which carries the token weights; set it true (the authors' pos_mult_adv)",
      );
    }
  },
  async create({ config, request, resumeCheckpoint }): Promise<TokenRewardComponent | null> {
    const options = config.algorithm.tokenRewardModel;
    if (!options) return null;
    const saved = resumeCheckpoint ? join(resumeCheckpoint, 'components', 'token-rm', 'model') : null;
    const start = saved && existsSync(saved) ? saved : (options.checkpoint ?? request.init);
    if (!start) {
      throw new ConfigError(
        'algorithm.tokenRewardModel needs a checkpoint to start from: set init.checkpoint or algorithm.tokenRewardModel.checkpoint',
      );
    }
    const model = await ValueModel.load(start, options.seed ?? config.seed);
    const round = new TokenRewardRound(model, options);
    return {
      id: 'token-rm',
      round,
      hooks: {
        advantageTerms: async ({ timer }, groups, estimate) =>
          timer.time('token_rm_scores', () => round.advantages(groups, estimate)),
        afterUpdate: async ({ timer }) => {
          timer.time('token_rm_train', () => round.train());
          return {};
        },
      },
      metrics: () => round.metrics(),
      saveModels: async (dir) => model.save(join(dir, 'model')),
      close: async () => model.dispose(),
    };
  },
});

/** The run's token-level reward model component, when the algorithm.tokenRewardModel block is set. */
export function tokenRewardOf(ctx: Pick<RlContext, 'components'>): TokenRewardComponent | undefined {
  return findComponent<TokenRewardComponent>(ctx.components, 'token-rm');
}
