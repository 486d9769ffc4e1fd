// Selector.inspect() (src/core/selector.ts): SEC's Q-values and last signal per arm, BOTS's Beta
// posteriors aggregated per level; and a real RL step on demo-cold logs them as curriculum/state/… metrics.
import { describe, expect, it } from 'vitest';
import { selectorStateMetrics } from '../core/selector.ts';
import { outcome, testProblem } from '../testing/curricula/test-pool.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { createBots } from './bots.ts';
import { createSec } from './sec.ts';

describe('selector inspect()', () => {
  it('sec: Q and the last batch signal (mean |A|) per arm', () => {
    const pool = [testProblem('easy', { difficulty: 1 }), testProblem('hard', { difficulty: 2 })];
    const selector = createSec(pool, { learningRate: 0.5 });
    expect(selector.inspect!()).toEqual({ 'sec/q/1': 0, 'sec/q/2': 0 });
    selector.observe(1, [outcome(pool[0], [1, 0, 1, 0], [1, -1, 0.5, -0.5])]);
    // r(1) = mean |A| = 0.75, Q(1) = 0.5 · 0.75; arm 2 absent: no signal, Q decays from 0.
    expect(selector.inspect!()).toEqual({ 'sec/q/1': 0.375, 'sec/signal/1': 0.75, 'sec/q/2': 0 });
    expect(selectorStateMetrics(selector)['curriculum/state/sec/q/1']).toBe(0.375);
  });

  it('bots: posterior mean, α and β averaged per level', () => {
    const pool = [
      testProblem('a', { difficulty: 1 }),
      testProblem('b', { difficulty: 1 }),
      testProblem('c', { difficulty: 2 }),
    ];
    const selector = createBots(pool, { discount: 0 });
    // λ = 0, ρ = 0 (no implicit evidence): a gets 3 successes of 4, b nothing, c 0 of 2.
    selector.observe(1, [outcome(pool[0], [1, 1, 1, 0]), outcome(pool[2], [0, 0])]);
    const state = selector.inspect!();
    // a: Beta(4, 2) mean 2/3, b: Beta(1, 1) mean 1/2 → level 1: mean 7/12, α 2.5, β 1.5. c: Beta(1, 3).
    expect(state['bots/mean/addition-1']).toBeCloseTo(7 / 12, 12);
    expect(state['bots/alpha/addition-1']).toBe(2.5);
    expect(state['bots/beta/addition-1']).toBe(1.5);
    expect(state['bots/mean/addition-2']).toBeCloseTo(0.25, 12);
    expect(Object.keys(state)).toHaveLength(6);
  });

  it('a real step logs the selector state as curriculum/state/… metrics', async () => {
    const ctx = await buildContext(
      rlConfigSchema.parse({
        seed: 4,
        init: { checkpoint: 'examples/checkpoints/demo-cold' },
        tasks: [{ task: 'addition', difficulties: [1, 2] }],
        poolSize: 4,
        selector: { name: 'sec' },
        rollout: { groupSize: 2, maxTokens: 24 },
        train: { steps: 1, batchSize: 2, learningRate: 1e-4 },
        policy: { workers: 1 },
      }),
    );
    try {
      const { metrics } = await rlStep(ctx, 1, 1e-4);
      expect(metrics['curriculum/state/sec/q/1']).toBe(ctx.selector.inspect!()['sec/q/1']);
      expect(Object.keys(metrics).filter((key) => key.startsWith('curriculum/state/sec/q/'))).toHaveLength(2);
    } finally {
      await ctx.policy.close?.();
    }
  }, 60_000);
});
