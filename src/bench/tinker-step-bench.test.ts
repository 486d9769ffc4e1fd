// The remote bench's Tinker part, small: real RL steps of the demo-cold checkpoint in process and over
// `curricula serve --tinker` (loopback, protobuf), alternating. The timings are not checked (a shared
// machine); what is checked is that both lanes ran every timed step, that the overhead is the ratio of
// the medians, and that the two lanes sampled the same completions and agree on every metric — which
// holds only because the client seeds prompt p as the in-process PromptSeededPolicy does.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers.ts';
import { formatTinkerBench, runTinkerBench } from './tinker-step-bench.ts';

/** Command lines of this process's children ('' when it has none: ps then exits with 1). */
function childCommands(): string {
  try {
    return execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return '';
  }
}

describe('bench remote --only tinker', () => {
  it('runs an RL step in process and over HTTP, alternating, with the same samples and metrics', async () => {
    const lines: string[] = [];
    const result = await runTinkerBench({
      checkpoint: resolve(import.meta.dirname, '../../examples/checkpoints/demo-cold'),
      steps: 2,
      warmup: 0,
      batchSize: 3,
      groupSize: 4,
      maxTokens: 16,
      seed: 5,
      onProgress: (line) => lines.push(line),
    });
    expect(result.inProcess.stepsSeconds).toHaveLength(2);
    expect(result.overHttp.stepsSeconds).toHaveLength(2);
    expect(result.overhead).toBeCloseTo(result.overHttp.stepSeconds / result.inProcess.stepSeconds - 1, 12);
    expect(lines.map((line) => line.split(':')[0])).toEqual(['step 1', 'step 2']);
    expect(result.agreement).toMatchObject({
      samplesEqual: true,
      stepsWithDifferentSamples: [],
      missingMetrics: [],
      agree: true,
    });
    expect(result.agreement.maxMetricDifference).toBeLessThanOrEqual(1e-5);
    expect(formatTinkerBench(result)).toMatch(/overhead -?\d+\.\d% \(target ≤ 15%: (met|NOT met)\)/);
    expect(formatTinkerBench(result)).toContain('samples identical; metrics agree');
  }, 120_000);

  it('with --server process, drives a curricula serve child process and stops it afterwards', async () => {
    const result = await runTinkerBench({
      checkpoint: resolve(import.meta.dirname, '../../examples/checkpoints/demo-cold'),
      steps: 1,
      warmup: 0,
      batchSize: 2,
      groupSize: 2,
      maxTokens: 8,
      seed: 5,
      server: 'process',
    });
    expect(result.serverSampling).toBeNull();
    expect(result.agreement).toMatchObject({ samplesEqual: true, agree: true });
    expect(formatTinkerBench(result)).toContain('server in a child process');
    // The child is gone: no `curricula serve` of this test is left listening.
    expect(childCommands()).not.toMatch(/curricula\.mjs serve/);
  }, 120_000);

  it('refuses an unknown --only with one line and exit code 2', () => {
    const result = runCli(['bench', 'remote', '--only', 'vllm']);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe("error: unknown --only 'vllm'; known: openai, tinker");
  });
});
