// Token identity on the embedded policy (issue 30's target): over 1,000 multi-turn episodes of the shipped
// demo-cold model, every token the episode trains (mask 1) is a token the policy sampled, in the context
// it was sampled in. Checked two ways: each turn's context and action match a (prompt, completion) pair
// that policy.sample returned, and the teacher-forced log-probs of the stored episode (policy.forward, the
// path training takes) equal the log-probs recorded at sampling on every trained position. The
// environment stops each turn at a newline and writes two tokens of its own, so every episode interleaves
// sampled and written tokens.
import { describe, expect, it } from 'vitest';
import { checkpoints } from '../api/checkpoints.ts';
import type { SampledSequence, SampleOptions } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { addition } from '../tasks/addition.ts';
import { promptTokens } from '../tasks/format.ts';
import type { Environment } from './contract.ts';
import { runEpisodes } from './episode.ts';
import { parseEpisodeLimits } from './limits.ts';

describe('token identity on the embedded policy', () => {
  it('trains exactly the sampled tokens over 1,000 multi-turn episodes', async () => {
    const policy = await EmbeddedBackend.load(checkpoints.demoCold, { runtime: 'wasm' });
    try {
      const sampled = new Map<string, number[][]>();
      const sample = policy.sample.bind(policy);
      policy.sample = async (prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> => {
        const result = await sample(prompts, options);
        prompts.forEach((prompt, i) => {
          const key = prompt.join(',');
          sampled.set(key, [...(sampled.get(key) ?? []), ...result[i].map((sequence) => sequence.tokens)]);
        });
        return result;
      };
      const rng = new Rng(17);
      const note = policy.tokenizer.encode('# ');
      const environment = (): Environment => {
        const problem = addition.generate(rng, 1 + rng.int(0, 3));
        let turns = 0;
        return {
          initialObservation: async () => ({
            tokens: promptTokens(policy.tokenizer, problem),
            stop: { stop: ['\n'] },
          }),
          step: async (action) =>
            action.stopReason !== 'stop' || ++turns >= 3
              ? { reward: addition.verify(problem, action.text).correct ? 1 : 0, done: true }
              : { reward: 0, done: false, observation: { tokens: note } },
        };
      };
      const limits = parseEpisodeLimits({ maxTurns: 4, maxTurnTokens: 24 });
      const episodes = [];
      for (let batch = 0; batch < 4; batch++)
        episodes.push(
          ...(await runEpisodes(policy, Array.from({ length: 250 }, environment), {
            limits,
            temperature: 1,
            topP: 1,
            seed: batch,
          })),
        );
      expect(episodes).toHaveLength(1000);
      const multiTurn = episodes.filter((episode) => episode.turns.length >= 2).length;
      expect(multiTurn).toBeGreaterThan(500);

      let trained = 0;
      for (const episode of episodes) {
        for (const turn of episode.turns) {
          const context = episode.tokens.slice(0, turn.start).join(',');
          const action = episode.tokens.slice(turn.start, turn.start + turn.actionTokens);
          const candidates = sampled.get(context) ?? [];
          const match = candidates.findIndex((tokens) => tokens.join(',') === action.join(','));
          expect(
            match,
            `turn at ${turn.start} of an episode: no sampled completion matches`,
          ).toBeGreaterThanOrEqual(0);
          candidates.splice(match, 1);
          expect(episode.mask.slice(turn.start, turn.start + turn.actionTokens)).toEqual(
            Array(turn.actionTokens).fill(1),
          );
          trained += turn.actionTokens;
        }
        expect(episode.mask.reduce((sum, m) => sum + m, 0)).toBe(
          episode.turns.reduce((sum, turn) => sum + turn.actionTokens, 0),
        );
      }
      const forward = await policy.forward(episodes.map((episode) => episode.tokens));
      let worst = 0;
      episodes.forEach((episode, e) => {
        for (let t = 1; t < episode.tokens.length; t++)
          if (episode.mask[t] === 1)
            worst = Math.max(worst, Math.abs(forward[e][t - 1] - episode.logprobs[t]));
      });
      console.log(
        `${multiTurn} of 1000 episodes multi-turn; ${trained} trained tokens; worst |Δ logp| ${worst.toExponential(2)}`,
      );
      expect(worst).toBeLessThan(1e-3);
    } finally {
      policy.dispose();
    }
  }, 120_000);
});
