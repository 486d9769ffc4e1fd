// Run component `remix` (`algorithm.remix`): ReMix's mix-policy proximal policy gradient and policy
// reincarnation. Paper: Liang et al., "Squeeze the Soaked Sponge: Efficient Off-policy Reinforcement
// Finetuning for Large Language Model" (ReMix, arXiv 2507.06892). The authors' public code
// (AnitaLeungxx/ReMix-Off-Policy-RFT) is their evaluation on a stock verl trainer: the off-policy training
// is not in it, so this follows the paper's description, and the defaults are ours (remix-options.ts).
//
// Mix-policy PPG: each step trains on its own on-policy batch plus the trained groups of the last
// `history` steps (replay-buffer.ts), each replayed member with the log-probs of the policy that sampled
// it as π_old: the loss's ratio is π_θ/π_{θ_{k−i}}, clipped as the loss clips (ppo-clip's ε). update.ts
// computes the current log-probs of replayed members with one forward before the first minibatch (an
// on-policy member's are the sampler's). Advantages of a replayed group are recomputed by the run's
// estimator from its stored rewards (group-relative ones come out as when it was sampled). A higher
// update-to-data ratio is the run's algorithm.epochs / minibatches, as in the paper's UTD settings.
// KL-Convex: algorithm.kl.precedent (the KL term's weight on the behaviour policy; src/algorithms/kl.ts).
// Policy reincarnation: from `reincarnateAt` the buffer is emptied and nothing is replayed.
//
// Replayed groups are trained, not observed: the selector, guidance and the run store see each group
// once, at the step that sampled it. They count in sampling/trained_groups, not in sampling/tokens (no
// token is sampled again). Metrics: remix/replayed_groups, remix/buffer_groups, remix/skipped_groups
// (groups not buffered: a member sampled from a scaffold). State (checkpoint key `remix`): the buffer.
//
// Refused at config time: kl.mode 'reward' (the penalty is applied to a group's rewards in place, and a
// replayed group's would be penalised twice), advantages 'remax' and 'gae' (their baselines are computed
// for the step's own groups: a greedy completion, the critic's values at the sampling weights) and
// self-play (generated problems are not in the pool a resumed run restores the buffer from).
import { ConfigError } from '../../../core/errors.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { defineRlComponent } from '../definition.ts';
import { ReplayBuffer, storeGroup, unreplayable } from './replay-buffer.ts';

export const remixComponent = defineRlComponent({
  id: 'remix',
  block: 'algorithm.remix',
  paper: {
    title:
      'Squeeze the Soaked Sponge: Efficient Off-policy Reinforcement Finetuning for Large Language Model',
    arxiv: '2507.06892',
    code: 'AnitaLeungxx/ReMix-Off-Policy-RFT (evaluation only; no training code)',
  },
  description:
    "algorithm.remix: ReMix's mix-policy PPG, the trained groups of past steps replayed with their behaviour log-probs, and policy reincarnation",
  validate(config) {
    if (!config.algorithm.remix) return;
    const why = (reason: string): never => {
      throw new ConfigError(`algorithm.remix: ${reason}`);
    };
    if (config.algorithm.kl.mode === 'reward' && config.algorithm.kl.coefficient > 0)
      why(
        "kl.mode 'reward' penalises a group's rewards in place, so a replayed group would be penalised twice; use kl.mode 'loss'",
      );
    const advantage = config.algorithm.advantage.name;
    if (advantage === 'remax' || advantage === 'gae')
      why(
        `advantage '${advantage}' computes its baseline for the step's own groups only; use a group-relative estimator (grpo, rloo, …)`,
      );
    if (config.selfPlay)
      why("self-play's generated problems are not in the pool a resumed run restores the replay buffer from");
  },
  create({ config, pool }) {
    const options = config.algorithm.remix;
    if (!options) return null;
    const buffer = new ReplayBuffer(new Map(pool.map((problem) => [problem.id, problem])));
    let pending: SampledGroup[] = [];
    let replayed = 0;
    let skipped = 0;
    const reincarnated = (step: number) =>
      options.reincarnateAt !== undefined && step >= options.reincarnateAt;
    return {
      id: 'remix',
      hooks: {
        extraGroups: ({ step }, groups) => {
          pending = [...groups];
          if (reincarnated(step)) buffer.clear();
          const replay = buffer.replay(options.groups);
          replayed = replay.length;
          return replay;
        },
        afterUpdate: async ({ step }) => {
          const buffering = !reincarnated(step); // from reincarnation on nothing is buffered
          const keep = buffering ? pending.filter((group) => unreplayable(group) === null) : [];
          skipped = buffering ? pending.length - keep.length : 0;
          buffer.add(
            keep.map((group) => storeGroup(group, step)),
            step,
            options.history,
          );
          pending = [];
          return {};
        },
      },
      metrics: () => ({
        'remix/replayed_groups': replayed,
        'remix/buffer_groups': buffer.size,
        'remix/skipped_groups': skipped,
      }),
      state: () => buffer.state(),
      load: (saved) => (saved === undefined || saved === null ? buffer.clear() : buffer.load(saved)),
    };
  },
});
