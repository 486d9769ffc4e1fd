// `curricula bench train --workers 1,2`: a real (tiny) run with both counts side by side, each on its own
// context with the same config and seed, their steps alternating; and the command line's answer to a bad
// --workers list. The timings themselves are not checked (a shared machine).
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers.ts';
import { checkpoints } from '../api/checkpoints.ts';
import { measureCoreContention } from './core-contention.ts';
import { formatTrainBench, runTrainBench } from './train-bench.ts';

describe('bench train --workers', () => {
  it('measures every worker count, alternating steps, with the speed-up over the first', async () => {
    const lines: string[] = [];
    const result = await runTrainBench({
      preset: 'tiny',
      steps: 2,
      warmup: 0,
      batchSize: 2,
      groupSize: 2,
      poolSize: 20,
      selector: 'uniform',
      workers: [1, 2],
      ceiling: false,
      onProgress: (line) => lines.push(line),
    });
    expect(result.runs.map((run) => run.workers)).toEqual([1, 2]);
    expect(result.runs[0].speedup).toBe(1);
    expect(result.runs[1].speedup).toBeCloseTo(result.runs[0].stepSeconds / result.runs[1].stepSeconds, 12);
    for (const run of result.runs) expect(run.stepsSeconds).toHaveLength(2);
    // Alternating: 1, 2, 1, 2.
    expect(lines.map((line) => line.split(',')[0])).toEqual([
      'workers 1',
      'workers 2',
      'workers 1',
      'workers 2',
    ]);
    expect(result.ceiling).toBeNull();
    expect(formatTrainBench(result)).toMatch(
      /speed-up of 2 workers over 1: \d+\.\d\d×; ceiling not measured \(target ≥ 1\.8× or ≥ 95% of the ceiling: /,
    );
    // With a ceiling: the share of it, and the target met by reaching 95% of it even below 1.8×.
    const [one, two] = result.runs;
    const measured = {
      ...result,
      runs: [
        { ...one, stepSeconds: 1 },
        { ...two, stepSeconds: 1 / 1.7 },
      ],
      ceiling: {
        msPerStepAlone: 100,
        msPerStepTogether: [112, 112] as [number, number],
        slowdown: 1.12,
        speedupCeiling: 2 / 1.12,
        loadAverage: [0, 0] as [number, number],
      },
    };
    expect(formatTrainBench(measured)).toContain(
      'speed-up of 2 workers over 1: 1.70×; ceiling here 1.79× (slowdown 1.120 with both cores busy, measured in this run), 95% of it (target ≥ 1.8× or ≥ 95% of the ceiling: met)',
    );
    measured.runs[1].stepSeconds = 1 / 1.6;
    expect(formatTrainBench(measured)).toMatch(/1\.60×; ceiling here 1\.79× .*, 90% of it \(.*: NOT met\)/);
  }, 120_000);

  it('measures the two-core ceiling: one training process alone, then two at once', async () => {
    const ceiling = await measureCoreContention({ checkpoint: checkpoints.demoCold, steps: 1 });
    expect(ceiling.msPerStepAlone).toBeGreaterThan(0);
    expect(ceiling.msPerStepTogether.every((ms) => ms > 0)).toBe(true);
    const [a, b] = ceiling.msPerStepTogether;
    expect(ceiling.slowdown).toBeCloseTo((a + b) / 2 / ceiling.msPerStepAlone, 12);
    expect(ceiling.speedupCeiling).toBeCloseTo(2 / ceiling.slowdown, 12);
    await expect(measureCoreContention({ checkpoint: '/nonexistent-checkpoint', steps: 1 })).rejects.toThrow(
      /core-contention child exited with [1-9]\d*: /,
    );
  }, 120_000);

  it('rejects a bad --workers list with one line and exit code 2', () => {
    const result = runCli(['bench', 'train', '--workers', 'two']);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      "error: --workers must be a comma-separated list of positive integers or 'auto', got 'two'",
    );
  });
});
