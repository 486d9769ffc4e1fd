// Credit for the sampled tokens of multi-turn episodes (issue 30; per-turn credit is verl #7244's open
// RFC, after #2540 and #3683 were closed unanswered). For a group of G episodes of one problem, with
// r_ik the reward of turn k of episode i:
//
// - Episode level (episodeDatum, episode-record.ts): every sampled token of episode i shares one advantage
//   A_i, from any of the advantage estimators (grpo, rloo, …) over the returns R_i = Σ_k r_ik. Unbiased for
//   the gradient of the return; a turn is also credited with the rewards of the turns before it, which
//   cannot depend on it: variance, not bias.
// - Turn level (turnAdvantages): the tokens of turn k get A_ik = G_ik − b_ik, with the reward-to-go
//   G_ik = Σ_{j≥k} γ^{j−k} r_ij and the leave-one-out baseline b_ik = the mean of G_lk over the other
//   episodes l ≠ i of the group that reached turn k (0 when none did; RLOO's baseline, Kool et al. 2019,
//   per turn). b_ik does not depend on episode i's own actions, so it adds no bias to the gradient of the
//   discounted return (γ = 1: the return itself); γ < 1 optimises the discounted return instead, a
//   stated bias towards early rewards. The baseline knows only the turn index, not the state the episode
//   reached there: episodes that got to turn k by different paths share it (a learned per-state value, as
//   in turn-level GAE, would cut variance further; there is none here). With one final reward and γ = 1,
//   every turn of an episode gets G = R_i, and only the baselines differ by turn.
//
// In a training run (the environment block's `credit: turn`, block.ts) these are the rewards r_ik that
// components/environment/turn-credit.ts gives turnAdvantages, with turnCallRewards as an optional bonus.
import { z } from 'zod';
import type { Datum } from '../core/policy.ts';
import type { Episode } from './episode-record.ts';

/** The credit options of the environment block; both variants take them (block.ts, remote/remote-block.ts). */
export const creditOptionsShape = {
  /**
   * How an episode's sampled tokens are credited: 'episode' (every sampled token shares the member's
   * advantage from the run's estimator) or 'turn' (the tokens of turn k get the leave-one-out turn
   * advantage A_ik = G_ik − b_ik of src/environments/credit.ts, the run's grade added to the last turn's
   * reward; docs/environments.md, "Per-turn credit").
   */
  credit: z.enum(['episode', 'turn']).default('episode'),
  /**
   * With credit 'turn': a format reward per well-formed tool call (a turn that ended in a call without a
   * parse error), added to that turn's reward; 0 = none.
   */
  callFormatReward: z.number().min(0).max(1).default(0),
  /** With credit 'turn': the most the call format rewards add to one episode (so calling cannot pay more than the task). */
  callFormatCap: z.number().min(0).max(1).default(0.2),
};

/** Options of turnAdvantages. */
export interface TurnCreditOptions {
  /** γ in [0, 1] (default 1: the undiscounted return). */
  discount?: number;
}

/** A_ik = G_ik − b_ik for every turn k of every episode i of one group (see the file header). */
export function turnAdvantages(
  turnRewards: readonly (readonly number[])[],
  options: TurnCreditOptions = {},
): number[][] {
  const discount = options.discount ?? 1;
  if (!(discount >= 0 && discount <= 1)) throw new RangeError(`discount must be in [0, 1], got ${discount}`);
  const toGo = turnRewards.map((rewards) => {
    const out = new Array<number>(rewards.length);
    let running = 0;
    for (let k = rewards.length - 1; k >= 0; k--) {
      running = rewards[k] + discount * running;
      out[k] = running;
    }
    return out;
  });
  const turns = Math.max(0, ...toGo.map((values) => values.length));
  const sums = new Array<number>(turns).fill(0);
  const counts = new Array<number>(turns).fill(0);
  for (const values of toGo)
    values.forEach((value, k) => {
      sums[k] += value;
      counts[k]++;
    });
  return toGo.map((values) =>
    values.map((value, k) => {
      const others = counts[k] - 1;
      return others > 0 ? value - (sums[k] - value) / others : value;
    }),
  );
}

/**
 * The episode as a training datum with per-turn credit: the sampled tokens of turn k weighted by
 * advantages[k], every written token 0.
 */
export function episodeTurnDatum(episode: Episode, advantages: readonly number[]): Datum {
  if (advantages.length !== episode.turns.length)
    throw new RangeError(`${advantages.length} advantages for an episode of ${episode.turns.length} turns`);
  const weights = new Array<number>(episode.tokens.length - 1).fill(0);
  episode.turns.forEach((turn, k) => {
    for (let t = turn.start; t < turn.start + turn.actionTokens; t++)
      if (t > 0) weights[t - 1] = advantages[k];
  });
  return { tokens: [...episode.tokens], weights };
}

/** Options of wellFormedCallReward. */
export interface CallFormatOptions {
  /** Reward per well-formed call (default 0.1). */
  perCall?: number;
  /** Most the format reward adds to an episode (default 0.2). */
  cap?: number;
  /** The metric that counts calls (default 'tool_calls', as TagToolEnvironment logs them). */
  metric?: string;
}

/**
 * A format reward for well-formed tool calls: perCall × (calls − malformed ones), between 0 and cap.
 * Capped so that calling tools cannot pay more than the task; add it to the episode's return.
 */
export function wellFormedCallReward(episode: Episode, options: CallFormatOptions = {}): number {
  const { perCall = 0.1, cap = 0.2, metric = 'tool_calls' } = options;
  const wellFormed = Math.max(0, (episode.metrics[metric] ?? 0) - episode.errors.parse);
  return Math.min(cap, perCall * wellFormed);
}

/** What turnCallRewards reads of a turn: how its sampling stopped and its error. */
export interface CallTurn {
  stopReason: string;
  error?: { kind: string };
}

/**
 * wellFormedCallReward per turn: perCall on each turn that ended in a well-formed call, in turn order
 * until the episode's total reaches cap (the turn that reaches it gets the rest). A turn ended in a call
 * when its sampling stopped at a stop string (stopReason 'stop': the closing tags are the only stop
 * strings tag-tools and remote environments set); it is well formed when its step had no parse error.
 */
export function turnCallRewards(turns: readonly CallTurn[], perCall: number, cap: number): number[] {
  let paid = 0;
  return turns.map((turn) => {
    if (turn.stopReason !== 'stop' || turn.error?.kind === 'parse') return 0;
    const reward = Math.max(0, Math.min(perCall, cap - paid));
    paid += reward;
    return reward;
  });
}
