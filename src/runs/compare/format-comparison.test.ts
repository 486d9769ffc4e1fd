import { describe, expect, it } from 'vitest';
import type { Point } from '../report/run-data.ts';
import { type ComparedRun, compareRuns } from './compare-runs.ts';
import { formatComparison } from './format-comparison.ts';

function run(name: string, group: string, seed: number, final: number, share4: number): ComparedRun {
  const series = new Map<string, Point[]>([
    [
      'eval/pass@1',
      [
        [0, 0.5],
        [10, final],
      ],
    ],
    ['eval/pass@1/addition/2', [[10, final + 0.1]]],
    ['eval/pass@1/addition/10', [[10, final - 0.1]]],
    ['eval/pass@2', [[10, final + 0.05]]],
    ['eval/pass@8', [[10, final + 0.2]]],
    [
      'reward/mean',
      [
        [1, 0],
        [2, 0],
      ],
    ],
    [
      'selection/share/addition/10',
      [
        [1, share4],
        [2, share4],
      ],
    ],
    [
      'losses/tokens',
      [
        [1, 10],
        [2, 20],
      ],
    ],
  ]);
  return { name, group, seed, series };
}

describe('formatComparison', () => {
  const comparison = compareRuns([
    run('u1', 'uniform', 1, 0.6, 0.5),
    run('u2', 'uniform', 2, 0.7, 0.5),
    run('b1', 'bots', 1, 0.7, 1),
    run('b2', 'bots', 2, 0.7, 0.8),
  ]);
  const markdown = formatComparison(comparison, {
    groupedBy: ['selector.name'],
    plots: [{ title: 'curve', path: 'a.svg' }],
  });

  it('tabulates pass@1 and the largest pass@k per level in numeric level order, with paired deltas', () => {
    expect(markdown).toContain('# Comparison: 4 runs in 2 groups by `selector.name`');
    expect(markdown).toContain(
      '| group | n | addition 2 | addition 10 | overall | Δ overall vs uniform (paired by seed) |',
    );
    expect(markdown).toContain('| uniform | 2 | 0.750 ± 0.071 | 0.550 ± 0.071 | 0.650 ± 0.071 | — |');
    expect(markdown).toContain(
      '| bots | 2 | 0.800 ± 0.000 | 0.600 ± 0.000 | 0.700 ± 0.000 | +0.050 ± 0.071 (n 2) |',
    );
    expect(markdown).toContain('## Final held-out pass@8');
    expect(markdown).not.toContain('pass@2');
  });

  it('gives steps to the target, speed-up, practice shares, cost and plots', () => {
    expect(markdown).toContain("## Steps to reach uniform's mean final held-out pass@1 (0.650)");
    expect(markdown).toContain('| uniform | 10 | —, 10 | 1.00× |');
    expect(markdown).toContain('| bots | 10 | 10, 10 | 1.00× |');
    expect(markdown).toContain('| group | addition/10 |');
    expect(markdown).toContain('| bots | 0.90 ± 0.14 |');
    expect(markdown).toContain('| uniform | 30 ± 0 |');
    expect(markdown).toContain('![curve](a.svg)');
  });

  it('warns when the runs of a group end at different steps', () => {
    const uneven = compareRuns([
      run('a', 'x', 1, 0.5, 1),
      { ...run('b', 'x', 2, 0.5, 1), series: new Map([['eval/pass@1', [[4, 0.5]] as Point[]]]) },
    ]);
    expect(formatComparison(uneven, { groupedBy: [] })).toContain(
      'the runs of x end at different steps (10, 4)',
    );
  });
});
