import { describe, expect, it } from 'vitest';
import type { Problem } from '../../core/problem.ts';
import { rolloutMetrics, selectionMetrics } from './metrics.ts';
import type { SampledGroup } from './rollout.ts';

function group(
  task: string,
  difficulty: number,
  rewards: number[],
  lengths = rewards.map(() => 2),
): SampledGroup {
  const problem = { id: `${task}-${difficulty}`, task, category: task, difficulty } as Problem;
  return {
    attempt: { problem, prompt: 'p', prefix: '', guided: false },
    context: [0],
    rollouts: lengths.map((length) => ({
      tokens: Array(length).fill(1),
      logprobs: Array(length).fill(-0.5),
      stopReason: 'stop',
    })) as unknown as SampledGroup['rollouts'],
    completions: rewards.map(() => 'x'),
    rewards,
    results: rewards.map((reward) => ({ reward, components: {} })) as unknown as SampledGroup['results'],
  };
}

describe('rollout metrics', () => {
  it('reports what was practised: share and mean reward per task and difficulty', () => {
    const groups = [
      group('addition', 1, [1, 1]),
      group('addition', 4, [0, 1]),
      group('addition', 4, [0, 0]),
      group('countdown', 2, [1, 0]),
    ];
    expect(selectionMetrics(groups)).toEqual({
      'selection/difficulty_mean': (1 + 4 + 4 + 2) / 4,
      'selection/share/addition/1': 0.25,
      'selection/reward/addition/1': 1,
      'selection/share/addition/4': 0.5,
      'selection/reward/addition/4': 0.25,
      'selection/share/countdown/2': 0.25,
      'selection/reward/countdown/2': 0.5,
    });
    expect(selectionMetrics([])).toEqual({});
  });

  it('computes reward, solved-group and entropy statistics over every rollout', () => {
    const metrics = rolloutMetrics([group('addition', 1, [1, 0], [2, 4]), group('addition', 2, [0, 0])]);
    expect(metrics['reward/mean']).toBe(0.25);
    expect(metrics['reward/std']).toBeCloseTo(Math.sqrt(0.1875), 12);
    expect(metrics['reward/solved_group_frac']).toBe(0.5);
    expect(metrics['response/length_mean']).toBe(2.5);
    expect(metrics['response/length_max']).toBe(4);
    expect(metrics.entropy).toBe(0.5);
    expect(metrics['selection/share/addition/2']).toBe(0.5);
  });
});
