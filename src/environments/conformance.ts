// The environment conformance suite (issue 30; exported by src/api/testing.ts): runs a user's environment
// factory through what the episode runner relies on and throws a ConformanceError naming the first broken
// property. Checked: the first observation is a non-empty list of vocabulary ids with string stop strings;
// a fresh environment gives the same first observation (determinism, which resume needs); a step on an
// EOS action, on garbage text that ran out of tokens and on an action that ends at each stop string
// answers within the timeout with a finite reward and a boolean done, and, when not done, an observation
// of vocabulary ids; close() resolves. The built-in environments' tests run the same suite.

import { Checker, type ConformanceReport, describeError, preview } from '../core/conformance.ts';
import { DeadlineError, withDeadline } from '../core/deadline.ts';
import type { Tokenizer } from '../core/policy.ts';
import type { Action, Environment, StepResult } from './contract.ts';

/** What checkEnvironment needs besides the factory. */
export interface EnvironmentCheckOptions {
  /** The tokenizer of the policy the environment will face. */
  tokenizer: Tokenizer;
  /** How long a call may take (default 10000 ms). */
  timeoutMs?: number;
  /** The subject's name in messages (default 'environment'). */
  name?: string;
}

async function timed<T>(check: Checker, what: string, ms: number, body: () => Promise<T>): Promise<T> {
  try {
    return await withDeadline(check.callAsync(what, body), ms, 'late');
  } catch (error) {
    if (error instanceof DeadlineError) check.fail(`${what} answers within ${ms} ms`);
    throw error;
  }
}

function ids(tokens: unknown, vocabSize: number): boolean {
  return Array.isArray(tokens) && tokens.every((id) => Number.isInteger(id) && id >= 0 && id < vocabSize);
}

function checkResult(check: Checker, label: string, result: StepResult, vocabSize: number): void {
  check.that(
    typeof result?.reward === 'number' && Number.isFinite(result.reward),
    `${label}: reward is finite`,
    () => preview(result?.reward),
  );
  check.that(typeof result.done === 'boolean', `${label}: done is a boolean`, () => preview(result.done));
  if (!result.done && result.observation)
    check.that(
      ids(result.observation.tokens, vocabSize),
      `${label}: observation tokens are vocabulary ids`,
      () => preview(result.observation?.tokens),
    );
}

/** Runs `make` through the suite; returns what was checked. */
export async function checkEnvironment(
  make: () => Environment | Promise<Environment>,
  options: EnvironmentCheckOptions,
): Promise<ConformanceReport> {
  const check = new Checker(`environment '${options.name ?? 'environment'}'`);
  const ms = options.timeoutMs ?? 10_000;
  const { tokenizer } = options;
  const fresh = async () => {
    const env = await check.callAsync('the factory', async () => make());
    const first = await timed(check, 'initialObservation()', ms, () => env.initialObservation());
    return { env, first };
  };
  const { env, first } = await fresh();
  check.that(
    ids(first?.tokens, tokenizer.vocabSize) && first.tokens.length > 0,
    'the first observation is vocabulary ids',
    () => preview(first?.tokens),
  );
  const stops = first.stop?.stop ?? [];
  check.that(
    Array.isArray(stops) && stops.every((s) => typeof s === 'string'),
    'stop strings are strings',
    () => preview(first.stop),
  );
  const again = await fresh();
  check.that(
    JSON.stringify(again.first) === JSON.stringify(first),
    'a fresh environment starts the same way',
    () => `${preview(first)} then ${preview(again.first)}`,
  );
  const eos: Action = { tokens: [tokenizer.eos], text: '', stopReason: 'eos' };
  checkResult(
    check,
    'a step on EOS',
    await timed(check, 'step(EOS)', ms, () => again.env.step(eos)),
    tokenizer.vocabSize,
  );
  await closeOnce(check, again.env, ms);

  const garbage = '}{ <<</ ~~';
  const garbageAction: Action = { tokens: tokenizer.encode(garbage), text: garbage, stopReason: 'length' };
  checkResult(
    check,
    'a step on garbage',
    await timed(check, 'step(garbage)', ms, () => env.step(garbageAction)),
    tokenizer.vocabSize,
  );
  await closeOnce(check, env, ms);

  for (const stop of stops) {
    const other = await fresh();
    const text = `x${stop}`;
    let tokens: number[];
    try {
      tokens = tokenizer.encode(text);
    } catch (error) {
      check.fail(`stop string ${preview(stop)} is encodable (${describeError(error)})`);
    }
    const result = await timed(check, `step(…${stop})`, ms, () =>
      other.env.step({ tokens, text, stopReason: 'stop' }),
    );
    checkResult(check, `a step ending at ${preview(stop)}`, result, tokenizer.vocabSize);
    await closeOnce(check, other.env, ms);
  }
  return check.report();
}

async function closeOnce(check: Checker, env: Environment, ms: number): Promise<void> {
  if (env.close) await timed(check, 'close()', ms, () => env.close?.() ?? Promise.resolve());
}
