// Reward errors are counted, not just shown in the few logged samples: a real training run (tiny fresh
// model, 3 steps of 16 completions, 2 logged samples per step) with a reward that fails on many
// completions logs reward/errors per step and keeps every distinct reason with its count in the run store.
// The expected counts come from the reward itself, which records each failure it causes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Reward, RewardInput, RewardResult } from '../../core/reward.ts';
import { rewards } from '../../rewards/index.ts';
import { buildReport } from '../../runs/report/build-report.ts';
import { RunStore } from '../../runs/run-store.ts';
import { rlConfigSchema } from './config.ts';
import { train } from './train.ts';

/** Failures the reward caused, by step and reason, as the trainer should report them. */
const caused = new Map<number, Map<string, number>>();

function record(step: number, reason: string): void {
  const byReason = caused.get(step) ?? new Map<string, number>();
  byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  caused.set(step, byReason);
}

/**
 * From step 1 on: a completion whose length is 1 mod 3 makes the reward throw (the whole batch first, then
 * that item alone when the trainer retries item by item); one whose length is 0 mod 3 gets NaN.
 */
const flakyReward: Reward = {
  name: 'flaky',
  async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
    const throwing = inputs.filter((input) => (input.step ?? 0) > 0 && input.completion.length % 3 === 1);
    if (throwing.length > 0) {
      if (inputs.length === 1) {
        record(inputs[0].step!, `reward error: length ${inputs[0].completion.length}`);
        throw new Error(`length ${inputs[0].completion.length}`);
      }
      throw new Error('batch has a bad item');
    }
    return inputs.map((input) => {
      if ((input.step ?? 0) > 0 && input.completion.length % 3 === 0) {
        record(input.step!, 'reward was NaN');
        return { reward: Number.NaN, components: {} };
      }
      return { reward: 1, components: {} };
    });
  },
};
rewards.register('test-flaky', () => flakyReward);

describe('reward errors in a training run', () => {
  it('logs reward/errors per step and every reason with its count', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'reward-errors-'));
    const result = await train(
      rlConfigSchema.parse({
        name: 'flaky',
        runsDir,
        model: { preset: 'tiny' },
        tasks: [{ task: 'addition', difficulties: [1] }],
        poolSize: 8,
        reward: { name: 'test-flaky' },
        rollout: { groupSize: 4, maxTokens: 12 },
        train: { steps: 3, batchSize: 4, learningRate: 0.001 },
        eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
        log: { samplesPerStep: 2 },
      }),
    );
    const store = RunStore.read(result.runDir);
    try {
      const expected = [...caused].flatMap(([step, byReason]) =>
        [...byReason].map(([reason, count]) => ({ step, reason, count })),
      );
      const byStepThenReason = (a: { step: number; reason: string }, b: { step: number; reason: string }) =>
        a.step - b.step || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0);
      expect(store.rewardErrors()).toEqual(expected.sort(byStepThenReason));
      const perStep = store.series('reward/errors').map((row) => [row.step, row.value]);
      const causedPerStep = [1, 2, 3].map((step) => [
        step,
        [...(caused.get(step)?.values() ?? [])].reduce((sum, count) => sum + count, 0),
      ]);
      expect(perStep).toEqual(causedPerStep);
      // More failures than the 2 stored samples per step could show, and both kinds of failure occurred.
      expect(causedPerStep.some(([, count]) => count > 2)).toBe(true);
      const reasons = new Set(expected.map((row) => row.reason));
      expect(reasons.has('reward was NaN')).toBe(true);
      expect([...reasons].some((reason) => reason.startsWith('reward error: length '))).toBe(true);
      // The run report lists them too.
      const total = causedPerStep.reduce((sum, [, count]) => sum + count, 0);
      const { markdown } = await buildReport(result.runDir);
      expect(markdown).toContain(`## Reward errors\n\n${total} completions in 3 steps could not be graded`);
      expect(markdown).toContain('| reward was NaN |');
    } finally {
      store.close();
    }
  }, 120_000);
});
