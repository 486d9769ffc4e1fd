// Crash-safe resume: a real `curricula train` process is killed with SIGKILL in the middle of training,
// resumed with --resume, and must end with exactly the steps and metrics of an uninterrupted run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonlLines } from '../src/runs/run-store.ts';
import { runCli, startCli, tempDir, writeYaml } from './helpers.ts';

const deterministic = (entry: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(entry).filter(([key]) => key !== 'time' && !key.startsWith('perf/')));

function metricsOf(runDir: string): Record<string, unknown>[] {
  return (readJsonlLines(join(runDir, 'metrics.jsonl')) as Record<string, unknown>[]).map(deterministic);
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('train --resume after kill -9', () => {
  it('continues with no lost or duplicated step and the same metrics as an uninterrupted run', async () => {
    const dir = tempDir('resume');
    const tasks = [{ task: 'modular-chain', difficulties: [1] }];
    const pretrainConfig = writeYaml(dir, 'pretrain.yaml', {
      name: 'cold',
      runsDir: dir,
      seed: 3,
      model: { preset: 'tiny' },
      tasks,
      train: { steps: 30, batchSize: 16, learningRate: 0.01 },
      eval: { every: 0, problemsPerDifficulty: 4 },
    });
    expect(runCli(['pretrain', '--config', pretrainConfig, '--quiet']).status).toBe(0);

    const trainConfig = (name: string) =>
      writeYaml(dir, `${name}.yaml`, {
        name,
        runsDir: dir,
        seed: 5,
        init: { checkpoint: join(dir, 'cold') },
        tasks,
        poolSize: 32,
        rollout: { groupSize: 4, maxTokens: 24 },
        train: { steps: 6, batchSize: 4, learningRate: 0.003 },
        eval: { every: 3, problemsPerDifficulty: 4, samples: 2 },
        checkpoint: { latestEvery: 2 },
      });
    expect(runCli(['train', '--config', trainConfig('straight'), '--quiet']).status).toBe(0);
    const reference = metricsOf(join(dir, 'straight'));
    expect(reference.map((entry) => entry.step)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // The test is only meaningful if the policy actually changed: some step had a non-zero gradient.
    expect(reference.some((entry) => Number(entry['train/grad_norm']) > 0)).toBe(true);

    const crashed = join(dir, 'crashed');
    const child = startCli(['train', '--config', trainConfig('crashed'), '--quiet']);
    const metricsPath = join(crashed, 'metrics.jsonl');
    await waitFor(
      () => existsSync(metricsPath) && readFileSync(metricsPath, 'utf8').includes('"step":3,'),
      90_000,
    );
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(metricsOf(crashed).length).toBeLessThan(reference.length);

    // The killed process left its lock behind; resume sees its owner is dead and takes it over.
    const resumed = runCli(['train', '--resume', crashed, '--quiet']);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(metricsOf(crashed)).toEqual(reference);
  }, 240_000);
});
