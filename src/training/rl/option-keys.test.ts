// Every registry whose entries take options (advantages, losses, selectors, rewards, guidance): a misspelt
// option key is a ConfigError that names the key and lists the keys that are allowed there, so the user can
// fix the config from the message alone. Runs against every registered entry, through the same calls
// setup.ts makes (resolveOptions, the selector / reward / guidance factories).
import { describe, expect, it } from 'vitest';
import { advantageEstimators } from '../../algorithms/advantages/index.ts';
import { policyLosses } from '../../algorithms/losses/index.ts';
import { ConfigError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { selectors } from '../../curricula/index.ts';
import { guidances } from '../../guidance/index.ts';
import { rewards } from '../../rewards/index.ts';
import { ProblemMix } from '../../tasks/problem-mix.ts';

const misspelt = { bogusKey: 1 };
const pool = new ProblemMix([{ task: 'addition', difficulties: [1, 2], weight: 1 }]).pool(20, new Rng(1));

/** The ConfigError message of `make()`; fails the test when it does not throw one. */
function messageOf(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('no error for a misspelt option key');
}

function schemaKeys(schema: unknown): string[] {
  return Object.keys((schema as { shape: object }).shape);
}

/** The message names the key and either lists `keys` or says that no keys are taken. */
function expectAllowedKeys(message: string, keys: readonly string[]): void {
  expect(message).toContain("'bogusKey'");
  if (keys.length === 0) expect(message).toContain('it takes no keys');
  else expect(message).toContain(`allowed: ${keys.join(', ')}`);
}

describe('a misspelt option key lists the valid keys', () => {
  it.each(advantageEstimators.names())('advantage %s', (name) => {
    const estimator = advantageEstimators.get(name);
    expectAllowedKeys(
      messageOf(() => estimator.resolveOptions(misspelt)),
      schemaKeys(estimator.optionsSchema),
    );
  });

  it.each(policyLosses.names())('loss %s', (name) => {
    const loss = policyLosses.get(name);
    expectAllowedKeys(
      messageOf(() => loss.resolveOptions(misspelt)),
      schemaKeys(loss.optionsSchema),
    );
  });

  it('ppo-clip, by hand', () => {
    expect(messageOf(() => policyLosses.get('ppo-clip').resolveOptions({ epsilon_low: 0.2 }))).toMatch(
      /^invalid options for loss 'ppo-clip': unknown key 'epsilon_low' at \(options\); allowed: .*epsilonLow/,
    );
  });

  it.each(selectors.names())('selector %s', (name) => {
    const message = messageOf(() => selectors.get(name)(pool, misspelt, { totalSteps: 10 }));
    expect(message).toMatch(/'bogusKey' at \(options\); allowed: \w+/);
  });

  it('selector sec, by hand', () => {
    expect(messageOf(() => selectors.get('sec')(pool, { temprature: 1 }))).toMatch(
      /^selector 'sec': invalid options: unknown key 'temprature' at \(options\); allowed: .*temperature/,
    );
  });

  it.each(rewards.names())('reward %s', (name) => {
    // math-answer formats its own list ("allowed keys: …"); the others share parseConfig's.
    expect(messageOf(() => rewards.get(name)(misspelt))).toMatch(/bogusKey.*allowed( keys)?: \w+/);
  });

  it.each(guidances.names())('guidance %s', (name) => {
    const message = messageOf(() => guidances.get(name)(misspelt));
    expect(message).toMatch(/'bogusKey'.*(allowed: \w+|it takes no keys)/);
  });
});
