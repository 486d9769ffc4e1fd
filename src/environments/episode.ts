// The multi-turn episode runner (issue 30): the policy and a batch of environments (contract.ts), turn by
// turn. Each turn samples one action for every live episode — batched policy.sample calls per distinct
// stop condition, episodes with the same context so far sharing one prompt of n rows — then awaits every environment's step at once (tool calls of a batch run concurrently),
// appends each observation after its action, and applies the limits and the parse-error policy
// (limits.ts). The episode is stored as it was sampled (episode-record.ts): the context of every turn is
// the episode's own tokens, so what is trained is what was sampled, token for token.
//
// Bad environments cannot stop the batch: a step or initial observation that throws, does not answer
// within stepTimeoutMs, returns a non-finite reward or token ids outside the vocabulary ends that episode
// with end 'environment_error', a zero return and the reason in its turn; the others go on. Every
// environment is closed once, whatever happened.
//
// Deterministic: the sampling seed of each call is derived from options.seed, the turn and the call's
// place in the turn, so the same environments and seed give the same episodes (a resumed run that
// replays a step gets the same tokens).
import { withDeadline } from '../core/deadline.ts';
import type { PolicyBackend, SampledSequence } from '../core/policy.ts';
import type { Action, Environment, Observation, StepError, StepResult, StopCondition } from './contract.ts';
import { type Episode, type EpisodeEnd, emptyErrors } from './episode-record.ts';
import { type EpisodeLimits, truncateMiddle } from './limits.ts';

/** How runEpisodes samples and what limits it applies. */
export interface RunEpisodesOptions {
  limits: EpisodeLimits;
  /** Most tokens after each episode's first observation (an RL run's rollout.maxTokens); absent = no cap. */
  maxCompletionTokens?: number;
  temperature: number;
  topP: number;
  seed: number;
  /** Called after each turn's steps with the number of episodes still going (progress; tests kill here). */
  onTurnEnd?: (turn: number, live: number) => void;
}

interface State {
  env: Environment;
  record: Episode;
  /** Most tokens of this episode: the context, limits.maxEpisodeTokens and maxCompletionTokens. */
  cap: number;
  stop?: StopCondition;
  ended: boolean;
}

class EnvironmentFailure extends Error {}

/** The environment's call, or a DeadlineError after `ms` (a late result is ignored). */
function withTimeout<T>(call: () => Promise<T>, ms: number, what: string): Promise<T> {
  return withDeadline(Promise.resolve().then(call), ms, `${what} did not answer within ${ms} ms`);
}

function newRecord(): Episode {
  return {
    tokens: [],
    mask: [],
    logprobs: [],
    samplingLogprobs: [],
    turns: [],
    return: 0,
    end: 'done',
    errors: emptyErrors(),
    metrics: {},
  };
}

function end(state: State, why: EpisodeEnd, zeroReturn = false): void {
  state.ended = true;
  state.record.end = why;
  if (zeroReturn) state.record.return = 0;
}

function environmentError(state: State, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  state.record.errors.environment++;
  state.record.environmentError = message;
  const last = state.record.turns.at(-1);
  if (last) last.error = { kind: 'environment', message };
  else state.record.metrics.initial_observation_failed = 1;
  end(state, 'environment_error', true);
}

/** Throws EnvironmentFailure unless every token is an id of the vocabulary. */
function checkTokens(tokens: unknown, vocabSize: number, what: string): number[] {
  if (!Array.isArray(tokens)) throw new EnvironmentFailure(`${what}: tokens is not an array`);
  const bad = tokens.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize);
  if (bad >= 0)
    throw new EnvironmentFailure(
      `${what}: token ${bad} (${String(tokens[bad])}) is outside [0, ${vocabSize})`,
    );
  return tokens as number[];
}

/** Runs one episode per environment to its end; result[i] belongs to environments[i]. */
export async function runEpisodes(
  policy: PolicyBackend,
  environments: readonly Environment[],
  options: RunEpisodesOptions,
): Promise<Episode[]> {
  const { limits } = options;
  const vocabSize = policy.tokenizer.vocabSize;
  const cap = Math.min(policy.contextLength, limits.maxEpisodeTokens ?? Number.POSITIVE_INFINITY);
  const states: State[] = environments.map((env) => ({ env, record: newRecord(), cap, ended: false }));
  try {
    await Promise.all(
      states.map(async (state) => {
        try {
          const first = await withTimeout(
            () => state.env.initialObservation(),
            limits.stepTimeoutMs,
            'initialObservation',
          );
          const tokens = checkTokens(first?.tokens, vocabSize, 'initialObservation');
          if (tokens.length === 0) throw new EnvironmentFailure('initialObservation: no tokens');
          if (tokens.length >= cap)
            throw new EnvironmentFailure(
              `initialObservation: ${tokens.length} tokens leave no room to answer`,
            );
          appendObservation(state, tokens);
          state.cap = Math.min(
            cap,
            tokens.length + (options.maxCompletionTokens ?? Number.POSITIVE_INFINITY),
          );
          state.stop = first.stop;
        } catch (error) {
          environmentError(state, error);
        }
      }),
    );
    for (let turn = 0; states.some((state) => !state.ended); turn++) {
      const actions = await sampleTurn(policy, states, options, turn);
      await Promise.all(
        [...actions].map(async ([state, action]) => {
          let result: StepResult;
          try {
            result = await withTimeout(() => state.env.step(action), limits.stepTimeoutMs, 'step');
          } catch (error) {
            environmentError(state, error);
            return;
          }
          applyStep(state, result, limits, vocabSize);
        }),
      );
      options.onTurnEnd?.(turn, states.filter((state) => !state.ended).length);
    }
  } finally {
    await Promise.allSettled(
      states.map((state) => withTimeout(async () => state.env.close?.(), limits.stepTimeoutMs, 'close')),
    );
  }
  return states.map((state) => state.record);
}

function appendObservation(state: State, tokens: readonly number[]): void {
  const record = state.record;
  for (const token of tokens) {
    record.tokens.push(token);
    record.mask.push(0);
    record.logprobs.push(0);
    record.samplingLogprobs.push(0);
  }
}

/**
 * Samples this turn's action of every live episode, grouped by stop condition and token budget (one
 * policy.sample call per group), appends it to the episode, and returns the actions to step.
 */
async function sampleTurn(
  policy: PolicyBackend,
  states: State[],
  options: RunEpisodesOptions,
  turn: number,
): Promise<Map<State, Action>> {
  const groups = new Map<string, { stop: string[]; budget: number; members: State[] }>();
  for (const state of states) {
    if (state.ended) continue;
    const budget = Math.min(
      options.limits.maxTurnTokens,
      state.stop?.maxTokens ?? Number.POSITIVE_INFINITY,
      state.cap - state.record.tokens.length,
    );
    if (budget <= 0) {
      end(state, 'max_tokens');
      continue;
    }
    const stop = (state.stop?.stop ?? []).filter((text) => text.length > 0);
    const key = JSON.stringify([stop, budget]);
    const group = groups.get(key) ?? { stop, budget, members: [] };
    group.members.push(state);
    groups.set(key, group);
  }
  const actions = new Map<State, Action>();
  let call = 0;
  for (const group of groups.values()) {
    // Episodes with the same context so far (the members of one problem at their first turn) share one
    // prompt of n rows, so the policy prefills it once; one call per multiplicity (n is per call).
    for (const shared of sharedContexts(group.members)) {
      const seed = ((options.seed >>> 0) * 1_000_003 + turn * 7_919 + call++) % 2_147_483_647;
      const sampled = await policy.sample(
        shared.map((states) => states[0].record.tokens),
        {
          n: shared[0].length,
          temperature: options.temperature,
          topP: options.topP,
          maxTokens: group.budget,
          stop: group.stop,
          seed,
        },
      );
      shared.forEach((states, prompt) => {
        states.forEach((state, row) => {
          actions.set(state, appendAction(state, sampled[prompt][row]));
        });
      });
    }
  }
  return actions;
}

/**
 * The members grouped by identical context, in order of first appearance, then bucketed by how many
 * share it: each bucket is one sample call (a list of prompts with the same n).
 */
function sharedContexts(members: readonly State[]): State[][][] {
  const byContext = new Map<string, State[]>();
  for (const state of members) {
    const key = state.record.tokens.join(',');
    const list = byContext.get(key) ?? [];
    list.push(state);
    byContext.set(key, list);
  }
  const byCount = new Map<number, State[][]>();
  for (const states of byContext.values()) {
    const bucket = byCount.get(states.length) ?? [];
    bucket.push(states);
    byCount.set(states.length, bucket);
  }
  return [...byCount.values()];
}

function appendAction(state: State, sequence: SampledSequence): Action {
  const record = state.record;
  record.turns.push({
    start: record.tokens.length,
    actionTokens: sequence.tokens.length,
    observationTokens: 0,
    observationTokensBefore: 0,
    reward: 0,
    stopReason: sequence.stopReason,
  });
  sequence.tokens.forEach((token, i) => {
    record.tokens.push(token);
    record.mask.push(1);
    record.logprobs.push(sequence.logprobs[i]);
    record.samplingLogprobs.push(sequence.samplingLogprobs[i]);
  });
  return { tokens: [...sequence.tokens], text: sequence.text, stopReason: sequence.stopReason };
}

function applyStep(state: State, result: StepResult, limits: EpisodeLimits, vocabSize: number): void {
  const record = state.record;
  const turn = record.turns[record.turns.length - 1];
  let observation: number[] = [];
  try {
    if (typeof result?.reward !== 'number' || !Number.isFinite(result.reward))
      throw new EnvironmentFailure(`step: reward ${String(result?.reward)} is not a finite number`);
    if (typeof result.done !== 'boolean') throw new EnvironmentFailure('step: done is not a boolean');
    if (!result.done && result.observation)
      observation = checkTokens(result.observation.tokens, vocabSize, 'step observation');
  } catch (error) {
    environmentError(state, error);
    return;
  }
  turn.reward = result.reward;
  record.return += result.reward;
  for (const [name, value] of Object.entries(result.metrics ?? {}))
    if (Number.isFinite(value)) record.metrics[name] = (record.metrics[name] ?? 0) + value;
  if (result.error) recordError(state, turn, result.error);
  if (result.error?.kind === 'parse' && limits.parseErrors !== 'respond') {
    end(state, 'parse_error', limits.parseErrors === 'zero');
    return;
  }
  if (result.done) {
    end(state, 'done');
    return;
  }
  const kept = truncateMiddle(observation, limits.maxObservationTokens);
  turn.observationTokensBefore = observation.length;
  if (record.tokens.length + kept.length >= state.cap) {
    end(state, 'max_tokens');
    return;
  }
  appendObservation(state, kept);
  turn.observationTokens = kept.length;
  state.stop = (result.observation as Observation | undefined)?.stop ?? state.stop;
  if (record.turns.length >= limits.maxTurns) end(state, 'max_turns');
}

function recordError(state: State, turn: Episode['turns'][number], error: StepError): void {
  if (error.kind === 'parse' || error.kind === 'tool' || error.kind === 'environment') {
    state.record.errors[error.kind]++;
    turn.error = { kind: error.kind, message: String(error.message) };
  }
}
