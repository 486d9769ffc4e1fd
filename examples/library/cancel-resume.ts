// Cancel a run with an AbortSignal and resume it: the run stops after the step in progress, saves a
// checkpoint and rejects with RunCancelledError (name 'AbortError'); `train(null, {resume})` continues it.
// `trainSteps` is the same run as an async iterator: leaving the loop early cancels it the same way.
import { checkpoints, RunCancelledError, type TrainConfig, train, trainSteps } from 'curricula';

const config: TrainConfig = {
  name: 'cancel-demo',
  init: { checkpoint: checkpoints.demoCold },
  tasks: [{ task: 'addition', difficulties: [3, 4] }],
  train: { steps: 20, batchSize: 4, learningRate: 1e-4 },
  rollout: { groupSize: 4, maxTokens: 64 },
  eval: { every: 0, problemsPerDifficulty: 4 },
};

// Stop after at most a minute (or on Ctrl-C).
const signal = AbortSignal.any([AbortSignal.timeout(60_000), abortOnInterrupt()]);
try {
  await train(config, { runsDir: 'runs', overwrite: true, signal });
} catch (error) {
  if (!(error instanceof RunCancelledError)) throw error;
  console.log(`stopped after step ${error.step}; resuming ${error.runDir}`);
  const result = await train(null, { resume: error.runDir });
  console.log(`finished at step ${result.steps}`);
}

// The iterator form: each step's metrics as they are logged.
for await (const { step, metrics } of trainSteps({ ...config, name: 'iterate-demo' }, { runsDir: 'runs', overwrite: true })) {
  const rewardMean = metrics['reward/mean'] ?? 0; // metrics is a Record: a key may be absent
  console.log(step, rewardMean);
  if (rewardMean > 0.9) break; // cancels the run after this step; it stays resumable
}

function abortOnInterrupt(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return controller.signal;
}
