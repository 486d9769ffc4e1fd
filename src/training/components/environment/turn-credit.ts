// Per-turn credit in the training loop (issue 30; verl #7244, the open RFC for it): with the environment
// block's `credit: turn`, the environment component answers the step's advantageTerms hook with per-token
// advantages in place of the estimator's one advantage per member. For the G episodes of one group, with
// turns k = 0 … K_i − 1 of episode i:
//
//   r_ik = env_ik, the environment's reward of turn k when the environment's rewards train (the remote
//          variant's `reward: environment`: its tool rewards); else 0 (tag-tools, or `reward: run`,
//          where the run's grade alone trains)
//        + the call format reward of turn k (turnCallRewards: callFormatReward per well-formed call,
//          capped at callFormatCap per episode)
//        + on the last turn only: R_i − Σ_k env_ik, the part of the member's graded reward R_i
//          (group.rewards after grading, afterGrade and a KL reward penalty) that no turn reward explains.
//          The run's grade arrives when the episode ends, so it belongs to the last turn; with
//          `reward: environment`, R_i = Σ_k env_ik and this term is 0 (except an episode whose return was
//          zeroed, where it takes the turn rewards back on the turn that ended it).
//   A_ik = turnAdvantages(r)_ik = G_ik − b_ik (credit.ts): the reward-to-go minus the mean reward-to-go at
//          turn k of the group's other members that reached turn k (γ = 1).
//
// Every token the policy sampled in turn k gets A_ik; every token the environment wrote gets 0 (it is
// masked from the loss anyway). The estimator's advantages are not used; only its `included` flags
// (which members train) are kept, so credit 'turn' carries RLOO's scale, not GRPO's std-normalised one.
//
// Biases, by choice:
// - The baseline b_ik is ONE leave-one-out mean per turn index. It depends only on the other episodes,
//   so it adds no bias to the gradient of the return, whenever episode i stops. The construction #7244
//   warns against normalises the rewards per turn index and sums them (A_ik = Σ_{j≥k} (r_ij − mean_j)): its
//   baseline Σ_{j≥k} mean_j has as many terms as episode i's own remaining turns, an action-dependent
//   baseline when the policy decides when to stop, biased by the accumulated intermediate-reward group
//   mean (a hidden bonus or penalty on taking another turn). Not done here; and no std division, whose
//   per-turn set of episodes would make the scale depend on who reached the turn.
// - A turn that no other member reached has no baseline (A = G): unbiased, but high variance, and it
//   trains even in a group whose members all got the same grade (episodes of different lengths).
// - The call format reward is shaping: it changes the objective towards making calls (bounded by the cap).
// - The baseline knows the turn index, not the state (no critic; see credit.ts).
//
// Placement: SkyRL puts a step's reward at the turn's last response token, as a token-level reward for
// GAE (skyrl_gym_generator.py). Not taken: with no critic and γ = 1, the reward-to-go of every token of
// turn k is then the same G_ik, so the token-level placement gives exactly these advantages; it differs
// only with a learned value or a per-token discount, which this loop does not have.
import type { AdvantageEstimate } from '../../../algorithms/advantages/estimator.ts';
import type { GroupRollout } from '../../../core/groups.ts';
import { turnAdvantages, turnCallRewards } from '../../../environments/credit.ts';
import type { SampledGroup } from '../../rl/rollout.ts';

/** The block's credit options that the turn credit reads. */
export interface TurnCreditOptions {
  /** The environment's turn rewards count (the remote variant's `reward: environment`). */
  environmentRewards: boolean;
  /** Reward per well-formed call, on the turn that made it (0 = none). */
  callFormatReward: number;
  /** The most the call rewards add to one episode. */
  callFormatCap: number;
}

/** Per-token advantages [group][sample] (undefined: the member does not train) and env/credit/… metrics. */
export interface TurnCredit {
  tokenAdvantages: (number[] | undefined)[][];
  metrics: Record<string, number>;
}

/** The per-turn rewards r_ik of one member (see the file header); [] for a member with no turns. */
export function memberTurnRewards(
  rollout: GroupRollout,
  graded: number,
  options: TurnCreditOptions,
): number[] {
  const turns = rollout.episode?.turns ?? [];
  if (turns.length === 0) return [];
  const bonus = turnCallRewards(turns, options.callFormatReward, options.callFormatCap);
  const environment = turns.map((turn) => (options.environmentRewards ? turn.reward : 0));
  const rewards = environment.map((reward, k) => reward + bonus[k]);
  const explained = environment.reduce((sum, reward) => sum + reward, 0);
  rewards[rewards.length - 1] += graded - explained;
  return rewards;
}

/**
 * A member's per-token advantages: tokens[start, start + actionTokens) of turn k get advantages[k], the
 * rest 0. Throws when a turn's span leaves the member's tokens or covers a token its lossMask says the
 * environment wrote (the spans and the tokens would not line up).
 */
export function memberTokenAdvantages(rollout: GroupRollout, advantages: readonly number[]): number[] {
  const turns = rollout.episode?.turns ?? [];
  const values = new Array<number>(rollout.tokens.length).fill(0);
  turns.forEach((turn, k) => {
    const end = turn.start + turn.actionTokens;
    if (turn.start < 0 || end > values.length)
      throw new RangeError(`turn ${k} spans [${turn.start}, ${end}) of a member of ${values.length} tokens`);
    for (let t = turn.start; t < end; t++) {
      if (rollout.lossMask && rollout.lossMask[t] !== 1)
        throw new RangeError(`turn ${k} covers token ${t}, which the environment wrote`);
      values[t] = advantages[k];
    }
  });
  return values;
}

/** The turn credit of every trained member of `groups` (see the file header). */
export function turnCredit(
  groups: readonly SampledGroup[],
  estimate: AdvantageEstimate,
  options: TurnCreditOptions,
): TurnCredit {
  let turns = 0;
  let absSum = 0;
  let unbaselined = 0;
  let members = 0;
  let callRewards = 0;
  const tokenAdvantages = groups.map((group, g) => {
    const rewards = group.rollouts.map((rollout, i) => memberTurnRewards(rollout, group.rewards[i], options));
    const advantages = turnAdvantages(rewards);
    const reached = advantages.reduce<number[]>((counts, values) => {
      values.forEach((_, k) => {
        counts[k] = (counts[k] ?? 0) + 1;
      });
      return counts;
    }, []);
    return group.rollouts.map((rollout, i) => {
      if (!estimate.included[g][i] || rollout.tokens.length === 0 || !rollout.episode) return undefined;
      members++;
      const turnsOf = rollout.episode.turns;
      callRewards += turnCallRewards(turnsOf, options.callFormatReward, options.callFormatCap).reduce(
        (sum, value) => sum + value,
        0,
      );
      advantages[i].forEach((value, k) => {
        turns++;
        absSum += Math.abs(value);
        if (reached[k] === 1) unbaselined++;
      });
      return memberTokenAdvantages(rollout, advantages[i]);
    });
  });
  const metrics: Record<string, number> = {
    'env/credit/turn_adv_abs_mean': turns > 0 ? absSum / turns : 0,
    'env/credit/unbaselined_turn_frac': turns > 0 ? unbaselined / turns : 0,
    'env/credit/call_reward_mean': members > 0 ? callRewards / members : 0,
  };
  return { tokenAdvantages, metrics };
}
