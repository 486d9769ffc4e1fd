// `evaluate` and `simulate` from a script: the configs of `curricula eval` and `curricula simulate`,
// validated by the same schemas (every invalid field listed), run by the same library functions.
import { describe, expect, it } from 'vitest';
import { ConfigError, checkpoints, evaluate, simulate, UserError } from '../index.ts';

describe('evaluate', () => {
  it('evaluates the shipped checkpoint on a task mix; greedy by default for one sample', async () => {
    const result = await evaluate({
      checkpoint: checkpoints.demoCold,
      tasks: [{ task: 'addition', difficulties: [1] }],
      problemsPerDifficulty: 3,
      workers: 1,
      perProblem: true,
    });
    expect(result.temperature).toBe(0);
    expect(result.samples).toBe(1);
    expect(result.problems).toBe('held-out');
    expect(result.perProblem).toHaveLength(3);
    expect(result.summary.overall.passAt1).toBeGreaterThanOrEqual(0);
  });

  it('lists every invalid field', async () => {
    const error = await evaluate({ checkpoint: 7, samples: 0, topP: 2, extra: true } as never).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const part of ['eval config: ', 'checkpoint:', 'samples:', 'topP:', "unknown key 'extra'"])
      expect(message).toContain(part);
  });
});

describe('simulate', () => {
  it('runs selectors on a simulated learner; unknown names list the known ones', async () => {
    const result = await simulate({
      selectors: ['uniform', { name: 'sec', label: 'SEC' }],
      steps: 5,
      seeds: 2,
      batchSize: 4,
      jobs: 1,
    });
    expect(result.results.map((entry) => entry.label)).toEqual(['uniform', 'SEC']);
    expect(result.results[0].curve.mean).toHaveLength(5);
    await expect(simulate({ selectors: ['nope'] })).rejects.toThrow(UserError);
    await expect(simulate({ selectors: ['nope'] })).rejects.toThrow(/unknown selector 'nope'; known: adarft/);
    await expect(simulate({ steps: 0, target: 2 })).rejects.toThrow(/^simulate config: steps: .*; target: /);
  });
});
