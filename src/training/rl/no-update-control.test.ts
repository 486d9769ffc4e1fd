// A zero-learning-rate control run (issue 28 item 3): `train.learningRate: 0` runs every phase of the
// RL step — sampling, grading, advantages, the loss and its gradients — and leaves the weights exactly
// as the cold start had them, so it is the no-update baseline of an experiment at equal sampled tokens.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PolicyBackend } from '../../core/policy.ts';
import { loadEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { resolveCheckpoint } from '../../runs/resolve-checkpoint.ts';
import { rlConfigSchema } from './config.ts';
import { train } from './train.ts';

const cold = 'examples/checkpoints/demo-cold';

/** The model of the run's last checkpoint (BEST may be the step-0 one). */
const lastModel = (runDir: string) => join(runDir, 'checkpoints', 'step-000002', 'model');

async function probe(modelPath: string): Promise<number[]> {
  const policy: PolicyBackend = await loadEmbeddedPolicy(modelPath, 1);
  try {
    const tokens = policy.tokenizer.encode('12+34=46\n', 'probe');
    const [logprobs] = await policy.forward([[policy.tokenizer.bos, ...tokens]]);
    return logprobs;
  } finally {
    await policy.close?.();
  }
}

describe('zero-learning-rate control', () => {
  it('trains nothing: the final weights score a probe exactly as the cold start does', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'no-update-'));
    const config = (learningRate: number, name: string) =>
      rlConfigSchema.parse({
        name,
        runsDir,
        seed: 3,
        init: { checkpoint: cold },
        tasks: [{ task: 'addition', difficulties: [3, 4] }],
        poolSize: 20,
        rollout: { groupSize: 4, maxTokens: 64 },
        train: { steps: 2, batchSize: 4, learningRate },
        eval: { every: 0, problemsPerDifficulty: 4, samples: 1 },
        policy: { workers: 1 },
      });
    const before = await probe(resolveCheckpoint(cold).modelPath);
    const control = await train(config(0, 'control'), {});
    expect(await probe(lastModel(control.runDir))).toEqual(before);
    // It did compute a gradient (rewards varied), and reports learning rate 0.
    const steps = readFileSync(join(control.runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, number>)
      .filter((row) => row['train/grad_norm'] !== undefined);
    expect(steps.some((row) => row['train/grad_norm'] > 0)).toBe(true);
    expect(steps.every((row) => row['train/lr'] === 0)).toBe(true);
    // The same run with a learning rate does move them (the probe can tell).
    const trained = await train(config(1e-3, 'trained'), {});
    expect(await probe(lastModel(trained.runDir))).not.toEqual(before);
  }, 120_000);
});
