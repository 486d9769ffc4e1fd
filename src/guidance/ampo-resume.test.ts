// Resume with `ampo`: a run stopped after 2 steps and resumed to 4 logs exactly the metrics (ampo/* and
// guidance/* included) of the run that went straight to 4, and saves the same scaffold state — the
// scaffold's own random stream (hybrid draws, replaced members, the teachers' sampling seeds) and the
// ledger travel with the checkpoint. Real steps: student ladder-cold on 6-digit addition (its edge: some
// groups fail), teacher demo-cold plus the oracle (workers 1).
import { describe, expect, it } from 'vitest';
import { savedExtra, stopAndResume } from '../testing/training/rl/resume-check.ts';
import { rlConfigSchema } from '../training/rl/config.ts';

const config = (runsDir: string) =>
  rlConfigSchema.parse({
    name: 'ampo-resume',
    runsDir,
    seed: 6,
    init: { checkpoint: 'examples/checkpoints/ladder-cold' },
    tasks: [{ task: 'addition', difficulties: [6] }],
    poolSize: 4,
    guidance: { name: 'ampo', options: { injection: 'hybrid', hybridProbability: 0.5, oracle: true } },
    teacher: { pool: [{ name: 'demo', checkpoint: 'examples/checkpoints/demo-cold' }] },
    algorithm: { advantage: { name: 'dr-grpo' } },
    rollout: { groupSize: 4, maxTokens: 96 },
    train: { steps: 4, batchSize: 3, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 1, samples: 1 },
    checkpoint: { latestEvery: 1 },
    log: { samplesPerStep: 0 },
    policy: { workers: 1 },
  });

describe('ampo state across resume', () => {
  it('stopped after 2 steps and resumed: the same metrics and the same saved state as a straight run', async () => {
    const { straight, resumed } = await stopAndResume(config, 2, 'ampo');
    expect(resumed.steps).toBe(4);
    const expected = straight.metrics;
    expect(resumed.metrics).toEqual(expected);
    expect(savedExtra(resumed.runDir, 'guidance')).toEqual(savedExtra(straight.runDir, 'guidance'));
    // The scaffold acted in the run (so the comparison covers its decisions).
    const helped = expected.reduce((sum, line) => sum + Number(line['ampo/selected'] ?? 0), 0);
    expect(helped).toBeGreaterThan(0);
  }, 60_000);
});
