// Test support for "a resumed run equals the straight run": the same config trained straight to the end,
// and trained with a stop after `stopAfter` steps then resumed to the end; returns both runs' deterministic
// metrics (timings dropped) and saved trainer-state extras, for the caller's assertions. The in-process
// counterpart of test/resume.test.ts's kill -9 resumes (which use the CLI); shared by the resume tests of
// the scaffolds, teachers and ReLIFT.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCheckpoint } from '../../../runs/checkpoints.ts';
import type { RlConfig } from '../../../training/rl/config.ts';
import { type TrainOptions, train } from '../../../training/rl/train.ts';

export type MetricLine = Record<string, unknown>;

/** metrics.jsonl of a run from step 1 on, without wall times and perf/* timings. */
export function deterministicMetrics(runDir: string): MetricLine[] {
  return readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as MetricLine)
    .filter((line) => (line.step as number) > 0)
    .map((line) =>
      Object.fromEntries(
        Object.entries(line).filter(
          ([key]) => key !== 'time' && !key.startsWith('time/') && !key.startsWith('perf/'),
        ),
      ),
    );
}

/** `extra[key]` of the trainer state the run's LATEST checkpoint saved. */
export function savedExtra(runDir: string, key: string): unknown {
  return readCheckpoint(join(runDir, 'checkpoints'))!.state.extra![key];
}

export interface StopAndResume {
  straight: { runDir: string; metrics: MetricLine[] };
  /** The run stopped after `stopAfter` steps (its directory, before the resume continued it). */
  stoppedRunDir: string;
  resumed: { runDir: string; steps: number; metrics: MetricLine[] };
}

/** Trains `config(runsDir)` straight, and again stopped after `stopAfter` steps and resumed. */
export async function stopAndResume(
  config: (runsDir: string) => RlConfig,
  stopAfter: number,
  prefix: string,
  afterStop?: (runDir: string) => void,
  /** Options of all three runs (a run kind with extra components). */
  options: Pick<TrainOptions, 'kind'> = {},
): Promise<StopAndResume> {
  const straight = await train(config(mkdtempSync(join(tmpdir(), `${prefix}-straight-`))), options);
  const first = await train(config(mkdtempSync(join(tmpdir(), `${prefix}-resumed-`))), {
    ...options,
    stopAfter,
  });
  afterStop?.(first.runDir);
  const resumed = await train(null, { ...options, resume: first.runDir });
  return {
    straight: { runDir: straight.runDir, metrics: deterministicMetrics(straight.runDir) },
    stoppedRunDir: first.runDir,
    resumed: { runDir: resumed.runDir, steps: resumed.steps, metrics: deterministicMetrics(resumed.runDir) },
  };
}
