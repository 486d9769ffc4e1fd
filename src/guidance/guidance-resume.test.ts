// Resume with a scaffold: a run of oracle-prefix stopped after 2 steps and resumed to 4 logs exactly the
// metrics (guidance/* included) of the run that went straight to 4 — the scaffold's state travels with the
// checkpoint (train.ts: extra.guidance) and a fresh instance plans the same attempts. Real steps on the
// embedded ladder-cold checkpoint (workers 1) at 6 digits: every step-1 group fails, the search runs, and
// two problems are unlocked by step 3 and mixed with unguided attempts in step 4 (seed 2).
import { describe, expect, it } from 'vitest';
import { savedExtra, stopAndResume } from '../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../training/rl/config.ts';

const config = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'resume',
    runsDir,
    seed: 2,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [6] }],
    poolSize: 3,
    guidance: { name: 'oracle-prefix', options: { levels: 2 } },
    rollout: { groupSize: 3, maxTokens: 80 },
    train: { steps: 4, batchSize: 3, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

describe('guidance state across resume', () => {
  it('stop after 2 steps + resume = 4 steps straight (oracle-prefix metrics and state)', async () => {
    const { straight, resumed } = await stopAndResume(config, 2, 'guidance');
    expect(resumed.steps).toBe(4);
    const expected = straight.metrics;
    expect(expected.map((line) => line['guidance/unlocked'])).toEqual([0, 0, 2, 2]);
    expect(expected[3]['guidance/transfer_pass_rate']).toBeDefined();
    expect(resumed.metrics).toEqual(expected);
    expect(savedExtra(resumed.runDir, 'guidance')).toEqual(savedExtra(straight.runDir, 'guidance'));
  }, 60_000);
});
