// bench losses on the shipped demo model, one round: every named loss is timed on the batch, its share
// is its time over the update step's, and an unknown name is refused with the known ones.
import { describe, expect, it } from 'vitest';
import { policyLosses } from '../algorithms/losses/index.ts';
import { benchLosses } from './loss-bench.ts';

describe('bench losses', () => {
  it('times each loss and the update step side by side', async () => {
    // every registered loss: the batch carries what each reads (rewards, groups, reference log-probs)
    const result = await benchLosses({ rounds: 1, repeats: 1, engine: 'tfjs' });
    expect(result.losses.map((row) => row.name)).toEqual(policyLosses.names());
    expect(result.sequences).toBe(128);
    expect(result.updateMilliseconds).toBeGreaterThan(0);
    for (const row of result.losses) {
      expect(row.milliseconds).toBeGreaterThan(0);
      expect(row.shareOfUpdate).toBeCloseTo(row.milliseconds / result.updateMilliseconds, 12);
    }
    expect(result.worstShare).toBe(Math.max(...result.losses.map((row) => row.shareOfUpdate)));
    const critic = result.critic!;
    expect(critic.valuesMilliseconds).toBeGreaterThan(0);
    expect(critic.trainMilliseconds).toBeGreaterThan(0);
    expect(critic.ratioToUpdate).toBeCloseTo(
      (critic.valuesMilliseconds + critic.trainMilliseconds) / result.updateMilliseconds,
      12,
    );
  }, 120_000);

  it('refuses an unknown loss name, listing the known ones', async () => {
    await expect(benchLosses({ rounds: 1, names: ['ppo'], critic: false })).rejects.toThrow(/ppo-clip/);
  });
});
