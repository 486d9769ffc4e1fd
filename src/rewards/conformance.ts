// Conformance of a Reward (src/core/reward.ts): the checks every grading reward passes
// (src/rewards/grading-conformance.test.ts runs this on each) and a user's reward can be run through
// (`checkReward` in src/api/testing.ts): one result per input in input order, each an object with a
// finite numeric reward, numeric components and an optional string reason; scoring one input alone gives
// the same reward as in the batch; an empty batch gives []; close() can be called twice; and, for a
// factory, unknown option keys are refused with a ConfigError. A failure is a ConformanceError naming the
// broken property, e.g. "reward 'mine': result 3: reward is a finite number (got NaN)".
import { Checker, type ConformanceReport, preview } from '../core/conformance.ts';
import { ConfigError } from '../core/errors.ts';
import type { Reward, RewardContext, RewardInput, RewardResult } from '../core/reward.ts';
import type { RewardFactory } from './registry.ts';

/** Options of checkReward. */
export interface RewardCheckOptions {
  /** Options given to a factory (default {}). */
  options?: unknown;
  /** Given to a factory besides its options, e.g. `{ policy }` for a reward that grades with the policy. */
  context?: RewardContext;
  /** Inputs to score (default: a few addition completions, right, wrong, empty and long). */
  inputs?: readonly RewardInput[];
  /** For a factory: check that unknown option keys are refused with a ConfigError (default true). */
  strictOptions?: boolean;
}

/** Addition 2+3 with completions that are right, oddly formatted, empty and long. */
export function defaultRewardInputs(): RewardInput[] {
  const problem = {
    id: 'addition-1-conformance',
    task: 'addition',
    prompt: '2+3=\n',
    answer: '5',
    solution: '2+3=5\nA:5',
    category: 'addition',
    difficulty: 1,
    params: {},
  };
  const group = [
    '<think>2+3</think><answer>\nA:5\n</answer>',
    'A:5',
    '<think>t</think><answer>5</answer><analysis>easy</analysis><confidence>0.9</confidence>',
    '',
    'x'.repeat(60),
  ];
  return group.map((completion, i) => ({ problem, completion, group, step: i * 10 }));
}

/**
 * Runs a reward (or a factory, built with `options.options`) through the reward contract; resolves to a
 * report, or rejects with a ConformanceError at the first broken property. The reward is closed after.
 */
export async function checkReward(
  subject: Reward | RewardFactory,
  options: RewardCheckOptions = {},
): Promise<ConformanceReport> {
  const isFactory = typeof subject === 'function';
  const label = isFactory ? (subject as { name?: string }).name || 'factory' : (subject as Reward)?.name;
  const check = new Checker(`reward '${label}'`);
  const reward = isFactory
    ? check.call('the factory', () => (subject as RewardFactory)(options.options ?? {}, options.context))
    : (subject as Reward);
  check.that(typeof reward === 'object' && reward !== null, 'is an object', () => preview(reward));
  check.that(typeof reward.name === 'string' && reward.name.length > 0, 'has a name', () =>
    preview(reward.name),
  );
  check.that(typeof reward.score === 'function', 'has a score() method');
  const inputs = options.inputs ?? defaultRewardInputs();
  try {
    const results = await check.callAsync('score(inputs)', async () => reward.score(inputs));
    checkResults(check, results, inputs.length);
    for (const index of [1, inputs.length - 1].filter((i) => i >= 0 && i < inputs.length)) {
      const single = await check.callAsync(`score([input ${index}])`, async () =>
        reward.score([inputs[index]]),
      );
      checkResults(check, single, 1);
      check.that(
        Object.is(single[0].reward, results[index].reward),
        'scoring one input alone gives the reward it got in the batch',
        () => `input ${index}: ${single[0].reward} alone, ${results[index].reward} in the batch`,
      );
    }
    const empty = await check.callAsync('score([])', async () => reward.score([]));
    check.that(Array.isArray(empty) && empty.length === 0, 'score([]) resolves to []', () => preview(empty));
  } finally {
    await check.callAsync('close()', async () => reward.close?.());
  }
  await check.callAsync('a second close()', async () => reward.close?.());
  check.that(true, 'close() twice is harmless');
  if (isFactory && options.strictOptions !== false) {
    const base = options.options ?? {};
    check.throws('the factory refuses unknown option keys with a ConfigError', ConfigError, () =>
      (subject as RewardFactory)({ ...(base as object), conformanceBogusKey: 1 }, options.context),
    );
  }
  return check.report();
}

function checkResults(check: Checker, results: unknown, expected: number): asserts results is RewardResult[] {
  check.that(Array.isArray(results), 'score() resolves to an array', () => preview(results));
  const list = results as unknown[];
  check.that(
    list.length === expected,
    'score() gives one result per input',
    () => `${list.length} results for ${expected} inputs`,
  );
  list.forEach((result, i) => {
    const at = `result ${i}`;
    check.that(
      typeof result === 'object' && result !== null,
      'each result is an object',
      () => `${at}: ${preview(result)}`,
    );
    const { reward, components, reason } = result as Record<string, unknown>;
    check.that(
      typeof reward === 'number' && Number.isFinite(reward),
      'each reward is a finite number',
      () => `${at}: ${preview(reward)}${typeof reward === 'number' ? ` (${reward})` : ''}`,
    );
    check.that(
      typeof components === 'object' &&
        components !== null &&
        Object.values(components).every((value) => typeof value === 'number'),
      'each result has components: an object of numbers',
      () => `${at}: ${preview(components)}`,
    );
    check.that(
      reason === undefined || typeof reason === 'string',
      'each reason is a string when present',
      () => `${at}: ${preview(reason)}`,
    );
  });
}
