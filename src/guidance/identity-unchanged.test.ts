// Guard for issue 13's off-policy injection: a run WITHOUT a scaffold that injects traces must be exactly
// what it was before the contract grew `offPolicy`. Three RL steps with identity guidance on demo-cold
// (workers 1): every step's metrics (timings excluded), every sampled completion and its log-probs, and
// the log-probs of a fixed sequence after the last update (a fingerprint of the weights) must equal the
// values recorded from main before the change. The values depend on the matmul kernels (OpenBLAS and wasm
// round differently), so there is one recording per kernel set and the test compares with the one that is
// running: src/testing/guidance/fixtures/identity-baseline-native.json was written by running this file
// with RECORD_IDENTITY_BASELINE=1 on commit 05b8bee, before any edit of the RL step (metrics logged since
// then, like sampling/tokens, are not in the recording and are not compared);
// src/testing/guidance/fixtures/identity-baseline-wasm.json the same way with CURRICULA_NATIVE=0 on commit
// 3bdc59d, on which the native recording still held (so both record the same code).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeKernelStatus } from '../policy/native-kernels.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';

/** The recording for the kernels this process runs (read after the policy is built, which loads them). */
function fixture(): string {
  const kernels = nativeKernelStatus().active ? 'native' : 'wasm';
  return join(import.meta.dirname, '../testing/guidance/fixtures', `identity-baseline-${kernels}.json`);
}

interface Fingerprint {
  metrics: Record<string, number>[];
  completions: string[][];
  logprobs: number[][][];
  weightsProbe: number[];
}

async function fingerprint(): Promise<Fingerprint> {
  const config = rlConfigSchema.parse({
    seed: 7,
    init: { checkpoint: 'examples/checkpoints/demo-cold' },
    tasks: [{ task: 'addition', difficulties: [2, 3] }],
    poolSize: 6,
    rollout: { groupSize: 4, maxTokens: 40 },
    train: { steps: 3, batchSize: 3, learningRate: 1e-3 },
    policy: { workers: 1 },
  });
  const ctx = await buildContext(config);
  const result: Fingerprint = { metrics: [], completions: [], logprobs: [], weightsProbe: [] };
  try {
    for (let step = 1; step <= 3; step++) {
      const report = await rlStep(ctx, step, 1e-3);
      result.metrics.push(
        Object.fromEntries(Object.entries(report.metrics).filter(([key]) => !key.startsWith('perf/'))),
      );
      result.completions.push(report.groups.flatMap((group) => group.completions));
      result.logprobs.push(
        report.groups.flatMap((group) => group.rollouts.map((rollout) => rollout.logprobs)),
      );
    }
    const probe = ctx.policy.tokenizer.encode('12+34=46\n', 'probe');
    [result.weightsProbe] = await ctx.policy.forward([[ctx.policy.tokenizer.bos, ...probe]]);
  } finally {
    await ctx.policy.close?.();
  }
  return result;
}

describe('identity guidance after the off-policy contract', () => {
  it('samples, metrics and weights of three RL steps equal the values recorded before the change', async () => {
    const now = await fingerprint();
    if (process.env.RECORD_IDENTITY_BASELINE === '1') {
      writeFileSync(fixture(), `${JSON.stringify(now)}\n`);
      return;
    }
    const before = JSON.parse(readFileSync(fixture(), 'utf8')) as Fingerprint;
    expect(now.completions).toEqual(before.completions);
    expect(now.logprobs).toEqual(before.logprobs);
    // Metrics added to the step since the recording (e.g. `sampling/tokens`) are new keys, not changed
    // values: compare every recorded key, and require each of them to still be there.
    const recorded = now.metrics.map((step, index) =>
      Object.fromEntries(Object.keys(before.metrics[index] ?? {}).map((key) => [key, step[key]])),
    );
    expect(recorded).toEqual(before.metrics);
    expect(now.weightsProbe).toEqual(before.weightsProbe);
  }, 60_000);
});
