// The adaptive rollout budget in the RL step: where pass rates come from, how the batch total is split,
// config errors, checkpoint state, unequal groups through sampleGroups, and two real training steps.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../../core/policy.ts';
import type { Problem } from '../../../core/problem.ts';
import { selectors } from '../../../curricula/index.ts';
import { readCheckpoint } from '../../../runs/checkpoints.ts';
import { additionProblem } from '../../../tasks/addition.ts';
import { type RlConfig, rlConfigSchema } from '../../rl/config.ts';
import type { RlContext } from '../../rl/context.ts';
import { sampleGroups } from '../../rl/rollout.ts';
import { validateRlConfig } from '../../rl/setup.ts';
import { train } from '../../rl/train.ts';
import { createRolloutBudget, validateRolloutBudget } from './rollout-budget.ts';

const pool: Problem[] = [additionProblem('1', '2'), additionProblem('3', '4'), additionProblem('5', '6')];

function config(rollout: Record<string, unknown>, extra: Record<string, unknown> = {}): RlConfig {
  return rlConfigSchema.parse({
    tasks: [{ task: 'addition', difficulties: [1] }],
    model: { preset: 'tiny' },
    train: { steps: 2, learningRate: 0.001 },
    rollout,
    ...extra,
  });
}

describe('rollout budget', () => {
  it('is off by default', () => {
    expect(createRolloutBudget(config({}), selectors.get('uniform')(pool, {}))).toBeNull();
  });

  it('uses the run history without selector estimates and gives uncertain problems more samples', () => {
    const budget = createRolloutBudget(
      config({ groupSize: 8, budget: { enabled: true } }),
      selectors.get('uniform')(pool, {}),
    )!;
    expect(budget.source).toBe('history');
    expect(budget.plan(pool)).toEqual([8, 8, 8]); // nothing known: all at p = 0.5
    budget.observe([
      { problem: pool[0], rewards: [1, 1, 1, 1, 1, 1, 1, 1], advantages: [] }, // p̂ = 9/10
      { problem: pool[1], rewards: [1, 0, 1, 0, 1, 0, 1, 0], advantages: [] }, // p̂ = 1/2
      { problem: pool[2], rewards: [0, 0, 0, 0, 0, 0, 0, 0], advantages: [] }, // p̂ = 1/10
    ]);
    // One level (S = F = 12 → 0.5, prior 2 pseudo-samples): estimates 0.9, 0.5, 0.1 → weights p(1−p) 0.09, 0.25, 0.09; the 18 samples above min 2 each
    // split 3.77, 10.47, 3.77 → 5.77, 12.47, 5.77 → floors 5, 12, 5 plus the two largest remainders.
    expect(budget.plan(pool)).toEqual([6, 12, 6]);
    expect(budget.metrics()).toMatchObject({ 'rollout/group_size_min': 6, 'rollout/group_size_max': 12 });
    const restored = createRolloutBudget(
      config({ groupSize: 8, budget: { enabled: true } }),
      selectors.get('uniform')(pool, {}),
    )!;
    restored.load(JSON.parse(JSON.stringify(budget.state())));
    expect(restored.plan(pool)).toEqual([6, 12, 6]);
  });

  it("takes bots's posteriors when the selector has them, and refuses 'selector' for one that has none", () => {
    const bots = selectors.get('bots')(pool, {});
    expect(createRolloutBudget(config({ budget: { enabled: true } }), bots)!.source).toBe('selector');
    expect(
      createRolloutBudget(config({ budget: { enabled: true, passRates: 'history' } }), bots)!.source,
    ).toBe('history');
    expect(() =>
      createRolloutBudget(
        config({ budget: { enabled: true, passRates: 'selector' } }),
        selectors.get('sec')(pool, {}),
      ),
    ).toThrow("selector 'sec' keeps no pass-rate estimates");
  });

  it('rejects bounds that cannot hold the batch total, and a minimum the estimator cannot use', () => {
    expect(() => validateRolloutBudget(config({ groupSize: 8, budget: { enabled: true, min: 10 } }))).toThrow(
      'need min ≤ groupSize ≤ max',
    );
    expect(() => validateRolloutBudget(config({ groupSize: 8, budget: { enabled: true, max: 6 } }))).toThrow(
      ConfigError,
    );
    expect(() => validateRlConfig(config({ groupSize: 8, budget: { enabled: true, min: 1 } }))).toThrow(
      /needs at least 2 samples per prompt, got 1/,
    );
  });
});

describe('sampleGroups with unequal group sizes', () => {
  it('samples each prompt once per completion and regroups them in order', async () => {
    const calls: { prompts: number; n: number }[] = [];
    let counter = 0;
    const policy = {
      contextLength: 64,
      tokenizer: { encode: (text: string) => [...text].map(() => 1), decode: () => '' },
      async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
        calls.push({ prompts: prompts.length, n: options.n });
        return prompts.map(() =>
          Array.from({ length: options.n }, () => {
            const text = String(counter++);
            return { tokens: [1], text, logprobs: [-1], samplingLogprobs: [-1], stopReason: 'stop' as const };
          }),
        );
      },
    } as unknown as PolicyBackend;
    const ctx = { policy, config: config({ groupSize: 4 }) } as RlContext;
    const attempts = pool.map((problem) => ({ problem, prompt: problem.prompt, prefix: '', guided: false }));
    const groups = await sampleGroups(ctx, attempts, 1, [2, 7, 3]);
    expect(calls).toEqual([{ prompts: 12, n: 1 }]);
    expect(groups.map((group) => group.completions)).toEqual([
      ['0', '1'],
      ['2', '3', '4', '5', '6', '7', '8'],
      ['9', '10', '11'],
    ]);
    await sampleGroups(ctx, attempts, 1, [4, 4, 4]);
    expect(calls[1]).toEqual({ prompts: 3, n: 4 }); // equal sizes keep the n-per-prompt call
  });
});

describe('training with the rollout budget', () => {
  it('runs real steps with unequal groups and logs the allocation', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'budget-'));
    const result = await train(
      config(
        { groupSize: 4, maxTokens: 8, budget: { enabled: true, min: 2, max: 8 } },
        {
          name: 'budget',
          runsDir,
          poolSize: 6,
          train: { steps: 2, batchSize: 3, learningRate: 0.001 },
          eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
        },
      ),
    );
    expect(result.steps).toBe(2);
    const lines = readFileSync(join(result.runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const step2 = lines.find((line) => line.step === 2);
    expect(step2['rollout/group_size_min']).toBeGreaterThanOrEqual(2);
    expect(step2['rollout/group_size_max']).toBeLessThanOrEqual(8);
    expect(step2['sampling/trained_sequences']).toBe(12); // the total stays batch × groupSize
    // The run-history estimates are saved with the checkpoint (resume continues the same allocation).
    const saved = readCheckpoint(join(result.runDir, 'checkpoints'))!.state.extra!.budget as {
      kind: string;
      step: number;
      problems: unknown[];
      levels: unknown[];
    };
    expect(saved.kind).toBe('pass-rate-tracker');
    expect(saved.step).toBe(2);
    expect(saved.problems.length).toBeGreaterThan(0);
    expect(saved.levels).toHaveLength(1);
  }, 120_000);
});
