// `curricula bench train --workers 1,2`: a real (tiny) run with both counts side by side, each on its own
// context with the same config and seed, their steps alternating; and the command line's answer to a bad
// --workers list. The timings themselves are not checked (a shared machine).
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers.ts';
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
    expect(formatTrainBench(result)).toMatch(/speed-up of 2 workers over 1: \d+\.\d\d× \(target ≥ 1\.8×: /);
  }, 120_000);

  it('rejects a bad --workers list with one line and exit code 2', () => {
    const result = runCli(['bench', 'train', '--workers', 'two']);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      "error: --workers must be a comma-separated list of positive integers or 'auto', got 'two'",
    );
  });
});
