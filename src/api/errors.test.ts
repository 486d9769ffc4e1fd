// Bad input through the public API: an invalid config lists every invalid field with its path, in the
// same words as the CLI prints for the same YAML; a taken plug-in name names both registrations; a reward
// plug-in that breaks its contract fails checkReward with the reason and, in a run, costs only the
// samples it broke (each with the reason logged), never the run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/main.ts';
import type { Reward } from '../core/reward.ts';
import {
  ConfigError,
  checkpoints,
  openRun,
  pretrain,
  registerReward,
  registerSelector,
  registerTask,
  train,
  UnknownNameError,
} from '../index.ts';
import { addition } from '../tasks/addition.ts';
import { checkReward } from './testing.ts';

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

const invalid = {
  tasks: [{ task: 'addition', difficulties: 'two' }],
  selector: { name: 7 },
  rollout: { groupSize: 0, bogus: true },
  train: { steps: -1 },
};

describe('an invalid config', () => {
  it('throws one ConfigError listing every invalid field with its path, as the CLI prints it', async () => {
    const error = (await train(invalid as never).catch((caught: unknown) => caught)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    const fields = [
      'tasks.0.difficulties:',
      'selector.name:',
      'rollout.groupSize:',
      "unknown key 'bogus' at rollout; allowed: groupSize",
      'train.steps:',
    ];
    for (const field of fields) expect(error.message).toContain(field);
    expect(error.message.startsWith('train config: ')).toBe(true);

    const file = join(mkdtempSync(join(tmpdir(), 'api-errors-')), 'bad.yaml');
    writeFileSync(file, JSON.stringify(invalid));
    const printed: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => printed.push(line));
    await main(['node', 'curricula', 'train', '--config', file]);
    expect(process.exitCode).toBe(2);
    expect(printed).toEqual([`error: ${file}: ${error.message.slice('train config: '.length)}`]);
  });

  it('pretrain and unknown names fail the same way', async () => {
    await expect(pretrain({ tasks: [], train: { steps: 0 } } as never)).rejects.toThrow(
      /^pretrain config: tasks: .*; train\.steps: /,
    );
    const runsDir = mkdtempSync(join(tmpdir(), 'api-errors-'));
    await expect(
      train({
        init: { checkpoint: checkpoints.demoCold },
        tasks: [{ task: 'addition', difficulties: [1] }],
        reward: { name: 'no-such-reward' },
        train: { steps: 1, learningRate: 1e-4 },
        runsDir,
      }),
    ).rejects.toThrow(UnknownNameError);
  });
});

describe('registering a taken name', () => {
  it('names the built-in entry or where the first registration came from, and the new one', () => {
    expect(() => registerTask('addition', addition)).toThrow(
      /^task 'addition' is already registered \(built-in\); cannot register it again \(registered at .*errors\.test\.ts:\d+:\d+\)/,
    );
    const factory = () => {
      throw new Error('unused');
    };
    registerSelector('mine', factory);
    expect(() => registerSelector('mine', factory, { origin: 'my-plugin v2' })).toThrow(
      /^selector 'mine' is already registered \(registered at .*errors\.test\.ts:\d+:\d+\); cannot register it again \(my-plugin v2\)/,
    );
    expect(() => registerTask('sum', addition)).toThrow('task \'sum\': its name property is "addition"');
  });
});

/** Right answer → 1; from step 1, a completion whose length is odd → NaN, a multiple of 4 → a bare number. */
const brokenReward: Reward = {
  name: 'broken',
  async score(inputs) {
    return inputs.map(({ problem, completion, step }) => {
      if ((step ?? 0) > 0 && completion.length % 2 === 1) return { reward: Number.NaN, components: {} };
      if ((step ?? 0) > 0 && completion.length % 4 === 0) return 0.5 as never;
      return { reward: completion.includes(`A:${problem.answer}`) ? 1 : 0, components: {} };
    });
  },
};

describe('a broken reward plug-in', () => {
  it('fails checkReward with the reason, and in a run costs only the samples it broke', async () => {
    const inputs = ['A:5', 'A:55', 'xyz', 'A:5\nok'].map((completion) => ({
      problem: {
        id: 'p',
        task: 'addition',
        prompt: '2+3\n',
        answer: '5',
        solution: 'A:5',
        category: 'addition',
        difficulty: 1,
        params: {},
      },
      completion,
      step: 1,
    }));
    await expect(checkReward(brokenReward, { inputs })).rejects.toThrow(
      "reward 'broken': each reward is a finite number (result 0: null (NaN))",
    );
    registerReward('broken', brokenReward);
    const runsDir = mkdtempSync(join(tmpdir(), 'api-broken-'));
    const result = await train(
      {
        seed: 1,
        init: { checkpoint: checkpoints.demoCold },
        tasks: [{ task: 'addition', difficulties: [1, 2] }],
        poolSize: 16,
        reward: { name: 'broken' },
        rollout: { groupSize: 4, maxTokens: 24 },
        train: { steps: 2, batchSize: 4, learningRate: 1e-4 },
        eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
        log: { samplesPerStep: 16 },
        policy: { workers: 1 },
      },
      { runsDir, name: 'broken' },
    );
    expect(result.steps).toBe(2);
    const run = openRun(result.runDir);
    try {
      const samples = run.samples({ since: 1 });
      expect(samples).toHaveLength(32);
      for (const sample of samples) {
        const length = sample.completion.length;
        if (length % 2 === 1) {
          expect(sample).toMatchObject({ reward: 0, reason: 'reward was NaN' });
        } else if (length % 4 === 0) {
          expect(sample).toMatchObject({ reward: 0, reason: 'reward result is not an object (got number)' });
        } else {
          expect(sample.reason).toBeNull();
          expect([0, 1]).toContain(sample.reward);
        }
      }
      const errors = run.rewardErrors();
      const counted = errors.reduce((sum, row) => sum + row.count, 0);
      expect(counted).toBe(
        samples.filter((sample) => sample.completion.length % 2 === 1 || sample.completion.length % 4 === 0)
          .length,
      );
      expect(counted).toBeGreaterThan(0);
      expect(run.metrics({ key: 'reward/errors' }).map((row) => row.step)).toEqual([1, 2]);
    } finally {
      run.close();
    }
  });
});
