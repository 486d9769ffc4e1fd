import { describe, expect, it } from 'vitest';
import { planCharts } from './charts.ts';
import { compareDifficulty, parseEvalKey } from './eval-keys.ts';

describe('planCharts', () => {
  it('draws training loss and evaluations for a pretrain run, and nothing of RL', () => {
    const plans = planCharts([
      'train/loss',
      'train/lr',
      'train/grad_norm',
      'perf/step_seconds',
      'eval/pass@1/addition/10',
      'eval/pass@1/addition/2',
      'eval/pass@1',
    ]);
    expect(plans.map((plan) => plan.file)).toEqual(['pass-at-1.svg', 'train-loss.svg']);
    // Difficulties in numeric order (2 before 10), the overall rate last; pass rates on [0, 1].
    expect(plans[0].series).toEqual([
      { name: 'addition/2', key: 'eval/pass@1/addition/2' },
      { name: 'addition/10', key: 'eval/pass@1/addition/10' },
      { name: 'all tasks', key: 'eval/pass@1' },
    ]);
    expect(plans[0].yDomain).toEqual([0, 1]);
  });

  it('groups curriculum keys (arms in natural order): per-arm probs, one chart per other per-arm statistic, scalars as panels', () => {
    const plans = planCharts([
      'curriculum/a:10/prob',
      'curriculum/a:2/prob',
      'curriculum/a:10/q',
      'curriculum/a:2/q',
      'curriculum/entropy',
      'curriculum/target_difficulty',
      'losses/kl',
    ]);
    expect(plans.map((plan) => [plan.file, plan.series.map((series) => series.name)])).toEqual([
      ['kl.svg', ['losses/kl']],
      ['curriculum-probs.svg', ['a:2', 'a:10']],
      ['curriculum-q-per-arm.svg', ['a:2', 'a:10']],
      ['curriculum-state.svg', ['entropy', 'target_difficulty']],
    ]);
    expect(plans[3].panels).toBe(true);
  });

  it('draws what was practised per level: shares on [0, 1] and the training reward, levels in numeric order', () => {
    const plans = planCharts([
      'selection/share/addition/10',
      'selection/share/addition/2',
      'selection/reward/addition/2',
      'selection/difficulty_mean',
    ]);
    expect(plans.map((plan) => [plan.file, plan.series.map((series) => series.name)])).toEqual([
      ['practice-share.svg', ['addition/2', 'addition/10']],
      ['practice-reward.svg', ['addition/2']],
    ]);
    expect(plans[0].yDomain).toEqual([0, 1]);
  });

  it('draws nothing for a run without metrics', () => {
    expect(planCharts([])).toEqual([]);
  });
});

describe('parseEvalKey', () => {
  it('parses per-group and overall keys; the difficulty is the last segment', () => {
    expect(parseEvalKey('eval/pass@8/addition/3')).toEqual({
      metric: 'pass',
      k: 8,
      task: 'addition',
      difficulty: '3',
    });
    expect(parseEvalKey('eval/maj@4/code/easy/2')).toEqual({
      metric: 'maj',
      k: 4,
      task: 'code/easy',
      difficulty: '2',
    });
    expect(parseEvalKey('eval/pass@1')).toEqual({ metric: 'pass', k: 1 });
    expect(parseEvalKey('reward/mean')).toBeNull();
    expect(parseEvalKey('eval/pass@k')).toBeNull();
  });

  it('orders difficulties numerically when they are numbers', () => {
    expect(['10', '2', 'hard', '1'].sort(compareDifficulty)).toEqual(['1', '2', '10', 'hard']);
  });
});
