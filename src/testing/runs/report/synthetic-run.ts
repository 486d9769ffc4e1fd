// A small synthetic RL run for the report tests: held-out evaluations at steps 0 and 4 (pass@1, pass@2,
// pass@4, maj@4 per task and difficulty, plus the overall rates), training metrics at steps 1–4,
// curriculum metrics, and two logged completions at the last step.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../../../runs/run-store.ts';

export const EVAL_BEFORE = {
  'eval/pass@1/addition/1': 0.25,
  'eval/pass@2/addition/1': 0.4,
  'eval/pass@4/addition/1': 0.5,
  'eval/maj@4/addition/1': 0.25,
  'eval/pass@1/addition/2': 0.1,
  'eval/pass@4/addition/2': 0.3,
  'eval/pass@1/countdown/3': 0.5,
  'eval/pass@4/countdown/3': 0.9,
  'eval/pass@1': 0.28,
  'eval/pass@4': 0.6,
};

export const EVAL_AFTER = {
  'eval/pass@1/addition/1': 0.75,
  'eval/pass@2/addition/1': 0.9,
  'eval/pass@4/addition/1': 1,
  'eval/maj@4/addition/1': 0.75,
  'eval/pass@1/addition/2': 0.3,
  'eval/pass@4/addition/2': 0.6,
  'eval/pass@1/countdown/3': 0.375,
  'eval/pass@4/countdown/3': 0.9,
  'eval/pass@1': 0.475,
  'eval/pass@4': 0.8,
};

export const CONFIG = {
  name: 'synthetic',
  seed: 7,
  train: { steps: 4, batchSize: 8 },
  selector: { name: 'sec' },
};

/** Creates the run in a fresh temporary directory and returns its path. */
export function createSyntheticRun(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'report-')), 'synthetic');
  const store = RunStore.create(dir, CONFIG);
  store.logMetrics(0, EVAL_BEFORE);
  for (let step = 1; step <= 4; step++) {
    store.logMetrics(step, {
      'reward/mean': step / 10,
      'reward/correct': step / 8,
      'reward/std': 0.3,
      'reward/solved_group_frac': 0.5,
      'losses/policy': -0.01 * step,
      'losses/approx_kl': 0.001 * step,
      entropy: 2 - 0.1 * step,
      'response/length_mean': 20 + step,
      'curriculum/addition:1/prob': 0.5 + 0.05 * step,
      'curriculum/addition:2/prob': 0.5 - 0.05 * step,
      'curriculum/target_difficulty': 10 + step,
      'curriculum/entropy': 0.69 - 0.01 * step,
      'perf/step_seconds': 1.5,
      ...(step === 4 ? EVAL_AFTER : {}),
    });
  }
  store.logSamples(4, [
    {
      problemId: 'addition-1-7',
      prompt: 'What is 2+3?',
      completion: '<think>2+3=5</think> ```5```',
      reward: 1,
      reason: 'correct',
    },
    {
      problemId: 'addition-2-3',
      prompt: 'What is 12+39?',
      completion: '41',
      reward: 0,
      reason: 'wrong answer',
    },
  ]);
  store.event('finished', { step: 4 });
  store.close();
  return dir;
}

/** A run with one metric at one step: its report has a single plot (fast to draw). */
export function createMinimalRun(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'report-')), 'minimal');
  const store = RunStore.create(dir, { name: 'minimal' });
  store.logMetrics(1, { 'reward/mean': 0.5 });
  store.close();
  return dir;
}
