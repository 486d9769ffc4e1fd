// ConfigError's structured issues: besides the one-line message, every problem of an invalid config comes
// as {path, code, message}, as zod reports it: from a train config (validateConfig and train()), from an
// algorithm's options and from a selector's options; a ConfigError thrown by a check of Curricula's own
// holds one `custom` issue with its message.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseOptions as parseSelectorOptions } from '../curricula/shared.ts';
import { ConfigError, registerTask, train, trainConfigSchema, validateConfig } from '../index.ts';
import { addition } from '../tasks/addition.ts';
import { estimateAdvantages } from './algorithms.ts';

const invalid = {
  tasks: [{ task: 'addition', difficulties: 'two' }],
  selector: { name: 7 },
  rollout: { groupSize: 0, bogus: true },
  train: { steps: -1 },
};

/** The ConfigError `run` throws (fails the test when it throws something else or nothing). */
async function configErrorOf(run: () => unknown): Promise<ConfigError> {
  let caught: unknown;
  try {
    await run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return caught as ConfigError;
}

describe('ConfigError.issues', () => {
  it('lists each invalid field of a train config with its path, zod code and message', async () => {
    const error = await configErrorOf(() => validateConfig(trainConfigSchema, invalid, 'train config'));
    const byPath = new Map(error.issues.map((issue) => [issue.path.join('.'), issue]));
    expect(byPath.get('tasks.0.difficulties')).toEqual({
      path: ['tasks', 0, 'difficulties'],
      code: 'invalid_type',
      message: 'Invalid input: expected array, received string',
    });
    expect(byPath.get('selector.name')).toMatchObject({ path: ['selector', 'name'], code: 'invalid_type' });
    expect(byPath.get('rollout.groupSize')).toEqual({
      path: ['rollout', 'groupSize'],
      code: 'too_small',
      message: 'Too small: expected number to be >0',
    });
    expect(byPath.get('train.steps')).toMatchObject({ path: ['train', 'steps'], code: 'too_small' });
    // An unknown key: the issue sits at the object that holds it and names the allowed keys.
    expect(byPath.get('rollout')).toEqual({
      path: ['rollout'],
      code: 'unrecognized_keys',
      message: expect.stringMatching(/^unknown key 'bogus'; allowed: groupSize, /),
    });
    // The message is the one line of the issues, in their order.
    expect(error.message).toBe(
      `train config: ${error.issues
        .map((issue) =>
          issue.code === 'unrecognized_keys'
            ? issue.message.replace(/^(unknown key '[^']*')/, `$1 at ${issue.path.join('.')}`)
            : `${issue.path.join('.')}: ${issue.message}`,
        )
        .join('; ')}`,
    );

    const fromTrain = await configErrorOf(() => train(invalid as never));
    expect(fromTrain.issues).toEqual(error.issues);
  });

  it("carries the issues of an algorithm's and a selector's options", async () => {
    const advantage = await configErrorOf(() =>
      estimateAdvantages('grpo', [{ rewards: [0, 1] }], { bogus: 1 }),
    );
    expect(advantage.message).toBe(
      "invalid options for advantage estimator 'grpo': unknown key 'bogus' at (options); allowed: epsilon, std",
    );
    expect(advantage.issues).toEqual([
      { path: [], code: 'unrecognized_keys', message: "unknown key 'bogus'; allowed: epsilon, std" },
    ]);

    const schema = z.strictObject({ eta: z.number().positive().default(1) });
    const selector = await configErrorOf(() => parseSelectorOptions('mine', schema, { eta: -2 }));
    expect(selector.message).toBe(
      "selector 'mine': invalid options: eta: Too small: expected number to be >0",
    );
    expect(selector.issues).toEqual([
      { path: ['eta'], code: 'too_small', message: 'Too small: expected number to be >0' },
    ]);
  });

  it('holds one custom issue for a check of its own', async () => {
    const error = await configErrorOf(() => registerTask('sum', addition));
    expect(error.issues).toEqual([{ path: [], code: 'custom', message: error.message }]);
    expect(new ConfigError('x', { issues: [] }).issues).toEqual([]);
  });
});
