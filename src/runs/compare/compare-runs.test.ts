import { describe, expect, it } from 'vitest';
import type { Point } from '../report/run-data.ts';
import { type ComparedRun, compareRuns, firstReaching, meanCurve, spread } from './compare-runs.ts';

function run(
  name: string,
  group: string,
  seed: number,
  curve: Point[],
  extra: Record<string, Point[]> = {},
): ComparedRun {
  const last = curve[curve.length - 1];
  return {
    name,
    group,
    seed,
    series: new Map<string, Point[]>([
      ['eval/pass@1', curve],
      ['eval/pass@1/addition/4', [[last[0], last[1] / 2]]],
      ['eval/pass@8', [[last[0], Math.min(1, last[1] + 0.2)]]],
      [
        'reward/mean',
        [
          [1, 0.5],
          [2, 0.5],
          [3, 0.5],
          [4, 0.5],
        ],
      ],
      ...Object.entries(extra),
    ]),
  };
}

// uniform: finals 0.6 and 0.8 → target 0.7. fast reaches 0.7 at step 2 on average, slow never.
const runs = [
  run(
    'u1',
    'uniform',
    1,
    [
      [0, 0.5],
      [2, 0.55],
      [4, 0.6],
    ],
    {
      'losses/tokens': [
        [1, 100],
        [2, 100],
        [3, 100],
        [4, 100],
      ],
    },
  ),
  run('u2', 'uniform', 2, [
    [0, 0.5],
    [2, 0.65],
    [4, 0.8],
  ]),
  run(
    'f1',
    'fast',
    1,
    [
      [0, 0.5],
      [2, 0.7],
      [4, 0.75],
    ],
    {
      'selection/share/addition/1': [
        [1, 1],
        [2, 0.5],
      ],
      'selection/share/addition/4': [
        [2, 0.5],
        [3, 1],
        [4, 1],
      ],
    },
  ),
  run('f2', 'fast', 2, [
    [0, 0.5],
    [2, 0.72],
    [4, 0.9],
  ]),
  run('s1', 'slow', 1, [
    [0, 0.5],
    [2, 0.5],
    [4, 0.52],
  ]),
];

describe('compareRuns', () => {
  const comparison = compareRuns(runs);

  it('takes uniform as the baseline and its mean final headline value as the target', () => {
    expect(comparison.baseline).toBe('uniform');
    expect(comparison.target).toBeCloseTo(0.7, 12);
    expect(comparison.keys).toEqual(['eval/pass@1', 'eval/pass@1/addition/4', 'eval/pass@8']);
    expect(comparison.groups.map((group) => group.group)).toEqual(['uniform', 'fast', 'slow']);
  });

  it('reports final values as mean, sample sd and 95% t-interval over the runs', () => {
    const fast = comparison.groups[1];
    expect(fast.final['eval/pass@1'].mean).toBeCloseTo(0.825, 12);
    expect(fast.final['eval/pass@1'].sd).toBeCloseTo(Math.SQRT2 * 0.075, 12);
    expect(fast.final['eval/pass@1'].ci95).toBeCloseTo(12.706 * 0.075, 9);
    expect(fast.final['eval/pass@1/addition/4'].values).toEqual([0.375, 0.45]);
    expect(comparison.groups[2].final['eval/pass@1']).toMatchObject({ mean: 0.52, sd: 0, ci95: 0, n: 1 });
  });

  it('finds the steps to the target on the mean curve and per run', () => {
    const [uniform, fast, slow] = comparison.groups;
    expect(uniform.curve).toEqual([
      [0, 0.5],
      [2, expect.closeTo(0.6, 12)],
      [4, expect.closeTo(0.7, 12)],
    ]);
    expect(uniform.stepsToTarget).toBe(4);
    expect(uniform.runStepsToTarget).toEqual([null, 4]);
    expect(fast.stepsToTarget).toBe(2);
    expect(fast.runStepsToTarget).toEqual([2, 2]);
    expect(slow.stepsToTarget).toBeNull();
  });

  it('gives the area under each run’s curve after step 0, over the runs', () => {
    const uniform = comparison.groups[0];
    expect(uniform.auc!.values.map((value) => Number(value.toFixed(12)))).toEqual([0.575, 0.725]);
    expect(uniform.auc!.mean).toBeCloseTo(0.65, 12);
  });

  it('pairs final differences to the baseline by seed', () => {
    const [uniform, fast, slow] = comparison.groups;
    expect(uniform.pairedDelta).toBeUndefined();
    expect(fast.pairedDelta!.values.map((value) => Number(value.toFixed(12)))).toEqual([0.15, 0.1]);
    expect(slow.pairedDelta!.values.map((value) => Number(value.toFixed(12)))).toEqual([-0.08]);
  });

  it('averages practice shares over all steps (a step without the key counts as 0) and sums costs', () => {
    const fast = comparison.groups[1];
    // f1 has 4 steps: addition/1 shares 1 + 0.5 over 4 steps; f2 logged none, so it is not counted.
    expect(fast.means['selection/share/addition/1']).toMatchObject({ mean: 0.375, n: 1 });
    expect(fast.means['selection/share/addition/4'].mean).toBeCloseTo(2.5 / 4, 12);
    expect(comparison.groups[0].sums['losses/tokens']).toMatchObject({ mean: 400, n: 1 });
  });

  it('accepts an explicit baseline (listed first) or target and rejects an unknown baseline', () => {
    const byFast = compareRuns(runs, { baseline: 'fast' });
    expect(byFast.target).toBeCloseTo(0.825, 12);
    expect(byFast.groups.map((group) => group.group)).toEqual(['fast', 'uniform', 'slow']);
    expect(compareRuns(runs, { target: 0.51 }).groups[2].stepsToTarget).toBe(4);
    expect(() => compareRuns(runs, { baseline: 'nope' })).toThrow(
      "baseline 'nope' is neither a group nor a run; groups: uniform, fast, slow",
    );
    // A run's name stands for its group (group labels of several keys are long to type).
    const byRun = compareRuns(runs, { baseline: runs.find((entry) => entry.group === 'fast')!.name });
    expect(byRun.baseline).toBe('fast');
    expect(byRun.target).toBeCloseTo(0.825, 12);
    expect(compareRuns(runs.filter((entry) => entry.group !== 'uniform')).target).toBeNull();
  });
});

describe('curve helpers', () => {
  it('meanCurve keeps only the steps every curve has', () => {
    expect(
      meanCurve([
        [
          [0, 1],
          [5, 0.5],
          [10, 0],
        ],
        [
          [0, 0],
          [10, 1],
        ],
      ]),
    ).toEqual([
      [0, 0.5],
      [10, 0.5],
    ]);
    expect(meanCurve([])).toEqual([]);
  });

  it('firstReaching tolerates float noise and returns null when never reached', () => {
    expect(
      firstReaching(
        [
          [0, 0.1],
          [20, 0.3 - 1e-12],
          [40, 0.5],
        ],
        0.3,
      ),
    ).toBe(20);
    expect(firstReaching([[0, 0.1]], 0.3)).toBeNull();
  });

  it('spread of one value has no spread', () => {
    expect(spread([0.4])).toEqual({ mean: 0.4, sd: 0, ci95: 0, n: 1, values: [0.4] });
  });
});
