// The shipped teacher examples load, pass every setup check, and run one small real step each (their
// own settings, with a smaller batch and one worker): examples/ladder-opd.yaml (demo-cold teaching
// ladder-cold; same tokenizer) and examples/ladder-privileged-hint.yaml (the initial self-teacher).
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../../core/config.ts';
import { rlConfigSchema } from '../../rl/config.ts';
import { buildContext } from '../../rl/setup.ts';
import { rlStep } from '../../rl/step.ts';
import { teachersOf } from './component.ts';

async function oneStep(file: string): Promise<Record<string, number>> {
  const example = loadConfigFile(rlConfigSchema, file);
  const ctx = await buildContext({
    ...example,
    poolSize: 4,
    rollout: { ...example.rollout, groupSize: 2 },
    train: { ...example.train, batchSize: 2 },
    policy: { workers: 1 },
  });
  try {
    return (await rlStep(ctx, 1, example.train.learningRate)).metrics;
  } finally {
    await ctx.policy.close?.();
    await teachersOf(ctx)?.teachers?.close();
  }
}

describe('teacher examples', () => {
  it('examples/ladder-opd.yaml: one step with the demo-cold teacher', async () => {
    const metrics = await oneStep('examples/ladder-opd.yaml');
    expect(metrics['teacher/signal_frac']).toBe(1);
    expect(metrics['teacher/failures']).toBe(0);
    expect(Number.isFinite(metrics['teacher/kl'])).toBe(true);
  }, 60_000);

  it('examples/ladder-privileged-hint.yaml: one step with the initial self-teacher', async () => {
    const metrics = await oneStep('examples/ladder-privileged-hint.yaml');
    expect(metrics['guidance/privileged_frac']).toBeGreaterThan(0);
    expect(metrics['teacher/failures']).toBe(0);
    expect(Number.isFinite(metrics['teacher/kl'])).toBe(true);
  }, 60_000);
});
