import { describe, expect, it } from 'vitest';
import { UnknownNameError } from '../../core/errors.ts';
import { lineChartSvg } from './plot-svg.ts';
import { formatSimulationTable, simulationSvg } from './report.ts';
import { grpoAdvantages, simulate, simulateParallel } from './simulate.ts';

describe('simulate', () => {
  it('GRPO advantages use the unbiased std: [1, 0, 0, 0] → [1.5, −0.5, −0.5, −0.5]', () => {
    // mean 0.25, unbiased std √(0.75/3) = 0.5.
    grpoAdvantages([1, 0, 0, 0]).forEach((value, i) => {
      expect(value).toBeCloseTo([1.5, -0.5, -0.5, -0.5][i], 5);
    });
    expect(grpoAdvantages([1, 1, 1])).toEqual([0, 0, 0]);
  });

  it('runs selectors over seeds and summarises AUC, steps to target and curves', () => {
    const result = simulate({
      selectors: ['uniform', 'e2h'],
      learner: 'irt',
      steps: 30,
      seeds: 2,
      batchSize: 8,
      groupSize: 4,
      target: 0.3,
    });
    expect(result.results.map((entry) => entry.label)).toEqual(['uniform', 'e2h']);
    for (const entry of result.results) {
      expect(entry.curves).toHaveLength(2);
      expect(entry.curve.mean).toHaveLength(30);
      expect(entry.auc.n).toBe(2);
      expect(entry.auc.mean).toBeGreaterThan(0);
      expect(entry.auc.mean).toBeLessThan(1);
      expect(entry.stepsToTarget).toEqual([1, 1]); // the easy category alone gives ≈ 0.33
    }
    // Same seeds → same curves.
    const again = simulate({
      selectors: ['uniform'],
      learner: 'irt',
      steps: 30,
      seeds: 2,
      batchSize: 8,
      groupSize: 4,
    });
    expect(again.results[0].curves).toEqual(result.results[0].curves);
    expect(formatSimulationTable(result)).toMatch(/\| uniform +\| 0\.\d{3} ± 0\.\d{3}/);
    expect(simulationSvg(result)).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
  });

  it('fails on unknown selector and learner names with the known names', () => {
    expect(() => simulate({ selectors: ['nope'], learner: 'irt', steps: 2, seeds: 1 })).toThrow(
      UnknownNameError,
    );
    expect(() => simulate({ selectors: ['uniform'], learner: 'nope', steps: 2, seeds: 1 })).toThrow(
      /known: irt/,
    );
  });
});

describe('lineChartSvg', () => {
  it('draws one path per series, escapes labels and maps values onto the plot box', () => {
    const svg = lineChartSvg([{ label: 'a<b', values: [0, 1] }], {
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      width: 300,
      height: 200,
      yMin: 0,
      yMax: 1,
    });
    expect(svg).toContain('a&lt;b');
    // Plot box: left 64, right edge 300 − 190 = 110, top 40, bottom 200 − 52 = 148.
    expect(svg).toContain('<path d="M64,148L110,40" fill="none"');
  });

  it('gives identical results when the runs are spread over worker threads', async () => {
    const options = { selectors: ['uniform', 'bots', 'sec'], learner: 'irt', steps: 30, seeds: 2 };
    const sequential = simulate(options);
    const parallel = await simulateParallel({ ...options, jobs: 2 });
    expect(parallel.results.map((result) => result.curves)).toEqual(
      sequential.results.map((result) => result.curves),
    );
    expect(parallel.results.map((result) => result.auc)).toEqual(
      sequential.results.map((result) => result.auc),
    );
  }, 60_000);
});
