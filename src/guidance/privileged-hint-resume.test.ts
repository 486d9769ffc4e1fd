// Resume with a teacher: a privileged-hint run (teacher 'initial', a frozen copy of init.checkpoint)
// stopped after 2 steps and resumed to 4 logs exactly the metrics of the run that went straight to 4,
// teacher/kl included. A resumed run that scored with the resumed policy instead of init.checkpoint, or
// lost the scaffold's state, would log other numbers from step 3 on. Real steps on ladder-cold
// (workers 1).
import { describe, expect, it } from 'vitest';
import { stopAndResume } from '../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../training/rl/config.ts';

const config = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'resume',
    runsDir,
    seed: 2,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [3] }],
    poolSize: 3,
    guidance: { name: 'privileged-hint', options: { marker: '\n', taskAdvantage: true } },
    rollout: { groupSize: 3, maxTokens: 48 },
    algorithm: { loss: { name: 'importance-sampling' } },
    train: { steps: 4, batchSize: 3, learningRate: 1e-3 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

describe('teacher state across resume', () => {
  it('stop after 2 steps + resume = 4 steps straight (privileged-hint, teacher initial)', async () => {
    const { straight, resumed } = await stopAndResume(config, 2, 'teacher');
    expect(resumed.steps).toBe(4);
    const expected = straight.metrics;
    expect(expected).toHaveLength(4);
    for (const line of expected) expect(line['teacher/kl']).toBeDefined();
    expect(resumed.metrics).toEqual(expected);
  }, 90_000);
});
