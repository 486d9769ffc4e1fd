// Train from a script: register the task and reward of ./plugins.ts, check them with the conformance
// helpers, run three RL steps on the shipped demo checkpoint, and read the metrics back. Run it in a
// project that installed curricula:  npx tsx train-script.ts   (docs/library.md)
import { checkpoints, openRun, registerReward, registerTask, type TrainConfig, train } from 'curricula';
import { checkReward, checkTask } from 'curricula/testing';
import { doubling, partialCredit } from './plugins.js'; // plugins.ts; tsc and tsx map .js to it

// The same contracts and checks as the built-in tasks and rewards: a broken plug-in fails here, with
// the property it breaks, before any training.
checkTask(doubling);
await checkReward(partialCredit);

registerTask('doubling', doubling);
registerReward('partial-credit', partialCredit);

// The same object as a YAML train config (schemas/train.schema.json); defaults may be left out.
const config: TrainConfig = {
  name: 'doubling',
  seed: 1,
  init: { checkpoint: checkpoints.demoCold },
  tasks: [{ task: 'doubling', difficulties: [1, 2] }],
  poolSize: 64,
  reward: { name: 'partial-credit' },
  rollout: { groupSize: 4, maxTokens: 20 },
  train: { steps: 3, batchSize: 4, learningRate: 1e-4 },
  eval: { every: 0, problemsPerDifficulty: 4, samples: 2 },
  policy: { workers: 1 },
};

const result = await train(config, {
  runsDir: 'runs',
  overwrite: true,
  // The event trainSteps yields: the step, its metrics and, when one ran, the held-out evaluation.
  onStepEvent: ({ step, metrics }) => console.log(`step ${step}: reward ${metrics['reward/mean']?.toFixed(3)}`),
});
console.log(`held-out pass@1 ${result.initialEval?.overall.passAt1} → ${result.finalEval.overall.passAt1}`);

const run = openRun(result.runDir);
try {
  for (const row of run.metrics({ key: 'reward/correct' })) console.log(row.step, row.value);
  const wrong = run.samples({ step: 3, where: (sample) => sample.reward !== 1 });
  console.log(wrong.map((sample) => `${sample.prompt.trim()} → ${sample.reason}`).join('\n'));
} finally {
  run.close();
}
