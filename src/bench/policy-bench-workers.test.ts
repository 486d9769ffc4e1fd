// `curricula bench policy --workers`: a real (tiny) run of the benchmark at 1 and 2 workers on the small
// size, and the command line's answer to a bad --workers value. The figures themselves are not checked
// (a shared machine); what is: every worker count is measured on the same work, the 2-worker run really
// went through worker threads with EOS disabled in them, and the JSON carries every count.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers.ts';
import { runPolicyBench } from './policy-bench.ts';

describe('bench policy --workers', () => {
  it('measures the train step and sampling for each worker count on the same work', async () => {
    const lines: string[] = [];
    const result = await runPolicyBench({
      configs: ['small'],
      workers: [1, 2],
      repeats: 1,
      warmup: 0,
      trainBatch: 2,
      sampleBatch: 16,
      python: null,
      torchThreads: [1],
      blasThreads: [1],
      roofline: true,
      onProgress: (line) => lines.push(line),
    });
    const [small] = result.configs;
    expect(small.runs.map((run) => run.workers)).toEqual([1, 2]);
    const contextLength = small.config.contextLength;
    for (const run of small.runs) {
      expect(run.train.tokensPerRun).toBe(2 * contextLength);
      expect(run.train.tokensPerSecond).toBeGreaterThan(0);
      // EOS is disabled in the worker replicas too: 16 rows, each from an 8-token prompt to the context.
      expect(run.sample.batch).toBe(16);
      expect(run.sample.tokensPerRun).toBe(16 * (contextLength - 8));
      expect(run.trainRatioToTorch).toBeNull();
      expect(run.phases?.map((phase) => phase.phase)).toEqual([
        'forward',
        'backward',
        'optimizer',
        'train step',
        'sampling',
      ]);
    }
    expect(small.wasm?.rates.length).toBe(4);
    expect(lines.some((line) => line.startsWith('small, 2 workers: train step'))).toBe(true);
    expect(lines.some((line) => line.startsWith('small, 1 worker: sampling'))).toBe(true);
  }, 120_000);

  it('rejects a bad --workers list with one line and exit code 2', () => {
    const result = runCli(['bench', 'policy', '--workers', '1,0', '--no-torch']);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      "error: --workers must be a comma-separated list of positive integers or 'auto', got '1,0'",
    );
    expect(result.stdout).toBe('');
  });
});
