// The episode runner (episode.ts) with a scripted policy: the episode's layout and mask, the datum it
// trains, every limit, the parse-error policies, environments that throw, hang, or answer garbage, and
// concurrent steps.
import { describe, expect, it } from 'vitest';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../core/policy.ts';
import { perRow, stubTokenizer } from '../testing/policy/test-helpers.ts';
import type { Action, Environment, StepResult } from './contract.ts';
import { runEpisodes } from './episode.ts';
import { episodeDatum } from './episode-record.ts';
import { parseEpisodeLimits, truncateMiddle } from './limits.ts';

const tokenizer = stubTokenizer(29);

/** A policy whose every action is `reply(prompt text, call)`, cut at the first stop string or the budget. */
function scriptedPolicy(reply: (prompt: string, call: number) => string, contextLength = 64) {
  const calls: { prompts: number[][]; options: SampleOptions }[] = [];
  const policy = {
    tokenizer,
    contextLength,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      calls.push({ prompts: prompts.map((prompt) => [...prompt]), options });
      return prompts.map((prompt) => {
        let text = reply(tokenizer.decode(prompt), calls.length - 1);
        let stopReason: SampledSequence['stopReason'] = 'eos';
        for (const stop of options.stop ?? []) {
          const at = text.indexOf(stop);
          if (at >= 0) {
            text = text.slice(0, at + stop.length);
            stopReason = 'stop';
          }
        }
        let tokens = tokenizer.encode(text);
        if (stopReason === 'eos') tokens.push(tokenizer.eos);
        if (tokens.length > options.maxTokens) {
          tokens = tokens.slice(0, options.maxTokens);
          stopReason = 'length';
        }
        const completion = tokenizer.decode(tokens);
        return [
          {
            tokens,
            text: completion,
            logprobs: tokens.map(() => -0.5),
            samplingLogprobs: tokens.map(() => -0.25),
            stopReason,
          },
        ];
      });
    },
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return { policy, calls };
}

/** An environment that appends `obs` after every action until `turns` actions, then rewards 1. */
function countingEnv(turns: number, obs = 'ok', extra: Partial<Environment> = {}) {
  let seen = 0;
  const state = { closed: 0, actions: [] as Action[] };
  const env: Environment = {
    initialObservation: async () => ({
      tokens: [tokenizer.bos, ...tokenizer.encode('go')],
      stop: { stop: ['c'] },
    }),
    step: async (action): Promise<StepResult> => {
      state.actions.push(action);
      seen++;
      if (seen >= turns) return { reward: 1, done: true, metrics: { calls: 1 } };
      return {
        reward: 0.25,
        done: false,
        observation: { tokens: tokenizer.encode(obs) },
        metrics: { calls: 1 },
      };
    },
    close: async () => {
      state.closed++;
    },
    ...extra,
  };
  return { env, state };
}

const sampling = { temperature: 1, topP: 1, seed: 5 };
const limits = (value: Record<string, unknown> = {}) => parseEpisodeLimits(value);

describe('runEpisodes', () => {
  it('stores first observation, actions and observations in order, masking what the environment wrote', async () => {
    const { policy, calls } = scriptedPolicy(() => 'abc');
    const { env, state } = countingEnv(3);
    const [episode] = await runEpisodes(policy, [env], { limits: limits(), ...sampling });
    const go = [tokenizer.bos, ...tokenizer.encode('go')];
    const abc = tokenizer.encode('abc'); // stops at 'c', the stop string kept
    const ok = tokenizer.encode('ok');
    expect(episode.tokens).toEqual([...go, ...abc, ...ok, ...abc, ...ok, ...abc]);
    expect(episode.mask).toEqual([0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1]);
    expect(episode.logprobs.filter((_, i) => episode.mask[i] === 1)).toEqual(Array(9).fill(-0.5));
    expect(episode.logprobs.filter((_, i) => episode.mask[i] === 0)).toEqual(Array(7).fill(0));
    expect(
      episode.turns.map((turn) => [turn.start, turn.actionTokens, turn.observationTokens, turn.reward]),
    ).toEqual([
      [3, 3, 2, 0.25],
      [8, 3, 2, 0.25],
      [13, 3, 0, 1],
    ]);
    expect(episode.return).toBe(1.5);
    expect(episode.end).toBe('done');
    expect(episode.metrics).toEqual({ calls: 3 });
    expect(state.closed).toBe(1);
    // The policy saw the episode's own tokens as its context each turn.
    expect(calls.map((call) => call.prompts[0])).toEqual([
      go,
      [...go, ...abc, ...ok],
      [...go, ...abc, ...ok, ...abc, ...ok],
    ]);
    expect(calls[0].options.stop).toEqual(['c']);
    // The datum weights exactly the sampled tokens.
    const datum = episodeDatum(episode, 2);
    expect(datum.tokens).toEqual(episode.tokens);
    expect(datum.weights).toEqual(episode.mask.slice(1).map((m) => 2 * m));
  });

  it('ends at maxTurns, at the episode or context budget, and passes each turn its token budget', async () => {
    const many = scriptedPolicy(() => 'abc');
    const [turns] = await runEpisodes(many.policy, [countingEnv(100).env], {
      limits: limits({ maxTurns: 2 }),
      ...sampling,
    });
    expect([turns.end, turns.turns.length]).toEqual(['max_turns', 2]);

    const tight = scriptedPolicy(() => 'abc');
    const [full] = await runEpisodes(tight.policy, [countingEnv(100).env], {
      limits: limits({ maxEpisodeTokens: 12, maxTurnTokens: 2 }),
      ...sampling,
    });
    expect(full.end).toBe('max_tokens');
    expect(full.tokens.length).toBeLessThanOrEqual(12);
    expect(tight.calls.every((call) => call.options.maxTokens <= 2)).toBe(true);
    expect(full.turns[0].stopReason).toBe('length');

    const capped = scriptedPolicy(() => 'abc');
    const [completion] = await runEpisodes(capped.policy, [countingEnv(100).env], {
      limits: limits(),
      maxCompletionTokens: 6,
      ...sampling,
    });
    expect(completion.end).toBe('max_tokens');
    expect(completion.tokens.length - 3).toBeLessThanOrEqual(6); // after the 3-token first observation

    const small = scriptedPolicy(() => 'abc', 9);
    const [context] = await runEpisodes(small.policy, [countingEnv(100).env], {
      limits: limits(),
      ...sampling,
    });
    expect(context.end).toBe('max_tokens');
    expect(context.tokens.length).toBeLessThanOrEqual(9);
  });

  it('cuts long observations in the middle', async () => {
    expect(truncateMiddle([1, 2, 3, 4, 5, 6, 7], 4)).toEqual([1, 2, 6, 7]);
    expect(truncateMiddle([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([1, 2, 7]);
    const { policy } = scriptedPolicy(() => 'abc');
    const [episode] = await runEpisodes(policy, [countingEnv(2, 'defghijklm').env], {
      limits: limits({ maxObservationTokens: 4 }),
      ...sampling,
    });
    expect(episode.turns[0].observationTokensBefore).toBe(10);
    expect(episode.turns[0].observationTokens).toBe(4);
    expect(tokenizer.decode(episode.tokens.slice(6, 10))).toBe('delm');
  });

  it('applies the parse-error policy: respond, end, or zero', async () => {
    const parsing = (): Environment => {
      let calls = 0;
      return {
        initialObservation: async () => ({ tokens: [tokenizer.bos] }),
        step: async () =>
          ++calls === 1
            ? {
                reward: 0.5,
                done: false,
                observation: { tokens: tokenizer.encode('err') },
                error: { kind: 'parse', message: 'bad call' },
              }
            : { reward: 1, done: true },
      };
    };
    const run = async (parseErrors: string) => {
      const { policy } = scriptedPolicy(() => 'ab');
      const [episode] = await runEpisodes(policy, [parsing()], {
        limits: limits({ parseErrors }),
        ...sampling,
      });
      return [
        episode.end,
        episode.return,
        episode.errors.parse,
        episode.turns.length,
        episode.turns[0].error?.message,
      ];
    };
    expect(await run('respond')).toEqual(['done', 1.5, 1, 2, 'bad call']);
    expect(await run('end')).toEqual(['parse_error', 0.5, 1, 1, 'bad call']);
    expect(await run('zero')).toEqual(['parse_error', 0, 1, 1, 'bad call']);
    expect(() => limits({ parseErrors: 'ignore' })).toThrow(/parseErrors/);
    expect(() => limits({ maxTurn: 3 })).toThrow(/Unrecognized key/);
  });

  it('ends only the episode whose environment throws, hangs or answers garbage; closes every one once', async () => {
    const { policy } = scriptedPolicy(() => 'ab');
    const good = countingEnv(2);
    const throwing = countingEnv(2, 'ok', {
      step: async () => {
        throw new Error('boom');
      },
    });
    const hanging = countingEnv(2, 'ok', { step: () => new Promise<StepResult>(() => {}) });
    const nanReward = countingEnv(2, 'ok', { step: async () => ({ reward: Number.NaN, done: false }) });
    const badTokens = countingEnv(2, 'ok', {
      step: async () => ({ reward: 0, done: false, observation: { tokens: [3, 29, 4] } }),
    });
    const badStart = countingEnv(2, 'ok', {
      initialObservation: async () => {
        throw new Error('no prompt');
      },
    });
    const all = [good, throwing, hanging, nanReward, badTokens, badStart];
    const episodes = await runEpisodes(
      policy,
      all.map((entry) => entry.env),
      { limits: limits({ stepTimeoutMs: 100 }), ...sampling },
    );
    expect(episodes.map((episode) => episode.end)).toEqual([
      'done',
      'environment_error',
      'environment_error',
      'environment_error',
      'environment_error',
      'environment_error',
    ]);
    expect(episodes[0].return).toBe(1.25);
    expect(episodes.slice(1).map((episode) => episode.return)).toEqual([0, 0, 0, 0, 0]);
    expect(episodes.slice(1, 5).map((episode) => episode.turns[0].error?.message)).toEqual([
      'boom',
      'step did not answer within 100 ms',
      'step: reward NaN is not a finite number',
      'step observation: token 1 (29) is outside [0, 29)',
    ]);
    expect(episodes[5].tokens).toEqual([]);
    expect(all.map((entry) => entry.state.closed)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('samples episodes that share their context as one prompt of n rows', async () => {
    const seen: [number, number][] = [];
    const policy = {
      tokenizer,
      contextLength: 64,
      async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
        seen.push([prompts.length, options.n]);
        const tokens = [...tokenizer.encode('ab'), tokenizer.eos];
        const row = {
          tokens,
          text: 'ab',
          logprobs: [-1, -1, -1],
          samplingLogprobs: [-1, -1, -1],
          stopReason: 'eos' as const,
        };
        return prompts.map(() => Array.from({ length: options.n }, () => row));
      },
    } as unknown as PolicyBackend;
    const other = countingEnv(1, 'ok', {
      initialObservation: async () => ({ tokens: [tokenizer.bos, ...tokenizer.encode('hi')] }),
    }).env;
    const same = () => countingEnv(1).env;
    const episodes = await runEpisodes(policy, [same(), other, same(), same()], {
      limits: limits(),
      ...sampling,
    });
    // Three share 'go' with the stop 'c', one starts with 'hi' and no stop: two groups, 3 rows and 1.
    expect(seen).toEqual([
      [1, 3],
      [1, 1],
    ]);
    expect(episodes.map((episode) => episode.return)).toEqual([1, 1, 1, 1]);
  });

  it('awaits the steps of a batch concurrently, and samples each stop condition in one call', async () => {
    const { policy, calls } = scriptedPolicy(() => 'abc');
    const slow = () =>
      countingEnv(2, 'ok', {
        step: async (action) => {
          await new Promise((resolve) => setTimeout(resolve, 150));
          return action.text.length > 100 ? { reward: 0, done: true } : { reward: 1, done: true };
        },
      }).env;
    const start = performance.now();
    const episodes = await runEpisodes(policy, Array.from({ length: 8 }, slow), {
      limits: limits(),
      ...sampling,
    });
    expect(performance.now() - start).toBeLessThan(8 * 150 * 0.5);
    expect(episodes.every((episode) => episode.return === 1)).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0].prompts).toHaveLength(8);
  });
});
