// `curricula bench train`: where the time of a whole RL step goes. Runs real RL steps (sampling, the
// verifier reward, GRPO, PPO update, run-store logging) on a fresh embedded model and splits each step
// into model compute (sampling, reference and policy forward/backward/optimizer) and everything else
// (selection, guidance, rewards, advantages, selector updates, metric assembly, SQLite/JSONL logging).
// Target: everything outside model compute < 5% of the step.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../core/config.ts';
import type { WorkerCount } from '../policy/parallel-options.ts';
import { RunStore } from '../runs/run-store.ts';
import { type RlConfig, rlConfigSchema } from '../training/rl/config.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { median } from './policy-bench.ts';

/** Phases of rlStep that run the model. */
const modelPhases = ['sample', 'reference', 'update'];

export interface TrainBenchOptions {
  preset: 'tiny' | 'small' | 'base';
  steps: number;
  warmup: number;
  batchSize: number;
  groupSize: number;
  /** Problems in the selector's pool (selection cost grows with it for some selectors). */
  poolSize: number;
  selector: string;
  /** policy.workers (default auto: one per core; 1 = in process). */
  workers?: WorkerCount;
  onProgress?: (line: string) => void;
}

export interface TrainBenchResult {
  options: Omit<TrainBenchOptions, 'onProgress'>;
  /** Median seconds per step, including logging. */
  stepSeconds: number;
  /** Median tokens (prompt + completion) processed per second of whole step. */
  tokensPerSecond: number;
  /** Median share of the step outside model compute. */
  outsideModelShare: number;
  /** Median share of each phase (plus 'logging' and 'other'). */
  phaseShares: Record<string, number>;
  targetOutsideModelShare: number;
  loadAverage: [number, number];
}

export async function runTrainBench(options: TrainBenchOptions): Promise<TrainBenchResult> {
  const config: RlConfig = parseConfig(
    rlConfigSchema,
    {
      name: 'bench-train',
      seed: 11,
      model: { preset: options.preset },
      tasks: [{ task: 'addition', difficulties: [1, 2, 3] }],
      poolSize: options.poolSize,
      selector: { name: options.selector },
      ...(options.workers !== undefined ? { policy: { workers: options.workers } } : {}),
      rollout: { groupSize: options.groupSize, maxTokens: 48 },
      train: { steps: options.steps + options.warmup, batchSize: options.batchSize, learningRate: 1e-4 },
    },
    'bench train',
  );
  const dir = join(tmpdir(), `curricula-bench-train-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  const store = RunStore.create(dir, config);
  const loadStart = (await import('node:os')).loadavg()[0];
  try {
    const ctx = await buildContext(config);
    const stepSeconds: number[] = [];
    const tokensPerSecond: number[] = [];
    const outside: number[] = [];
    const shares = new Map<string, number[]>();
    for (let step = 1; step <= options.warmup + options.steps; step++) {
      const start = performance.now();
      const report = await rlStep(ctx, step, 1e-4);
      const logStart = performance.now();
      store.logMetrics(step, report.metrics);
      store.logSamples(
        step,
        report.groups.slice(0, 2).map((group) => ({
          problemId: group.attempt.problem.id,
          prompt: group.attempt.prompt,
          completion: group.completions[0],
          reward: group.rewards[0],
        })),
      );
      const total = (performance.now() - start) / 1000;
      const logging = (performance.now() - logStart) / 1000;
      if (step <= options.warmup) continue;
      const phaseSeconds: Record<string, number> = { logging };
      for (const [key, value] of Object.entries(report.metrics)) {
        if (key.startsWith('perf/time/')) phaseSeconds[key.slice('perf/time/'.length)] = value;
      }
      const accounted = Object.values(phaseSeconds).reduce((sum, value) => sum + value, 0);
      phaseSeconds.other = Math.max(0, total - accounted);
      const model = modelPhases.reduce((sum, phase) => sum + (phaseSeconds[phase] ?? 0), 0);
      const tokens = report.groups.reduce(
        (sum, group) =>
          sum +
          group.rollouts.reduce((inner, rollout) => inner + group.context.length + rollout.tokens.length, 0),
        0,
      );
      stepSeconds.push(total);
      tokensPerSecond.push(tokens / total);
      outside.push((total - model) / total);
      for (const [phase, seconds] of Object.entries(phaseSeconds)) {
        if (!shares.has(phase)) shares.set(phase, []);
        shares.get(phase)!.push(seconds / total);
      }
      options.onProgress?.(
        `step ${step - options.warmup}/${options.steps}: ${total.toFixed(2)} s, outside model ${(100 * outside.at(-1)!).toFixed(2)}%`,
      );
    }
    const { onProgress: _progress, ...rest } = options;
    return {
      options: rest,
      stepSeconds: median(stepSeconds),
      tokensPerSecond: median(tokensPerSecond),
      outsideModelShare: median(outside),
      phaseShares: Object.fromEntries([...shares].map(([phase, values]) => [phase, median(values)])),
      targetOutsideModelShare: 0.05,
      loadAverage: [loadStart, (await import('node:os')).loadavg()[0]],
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatTrainBench(result: TrainBenchResult): string {
  const { options } = result;
  const lines = [
    `RL step on the ${options.preset} model: ${options.batchSize} problems × ${options.groupSize} samples, pool ${options.poolSize}, selector ${options.selector}`,
    `median step ${result.stepSeconds.toFixed(2)} s, ${Math.round(result.tokensPerSecond)} tokens/s`,
    `outside model compute: ${(100 * result.outsideModelShare).toFixed(2)}% of the step (target < ${100 * result.targetOutsideModelShare}%)`,
    'phase shares (median):',
    ...Object.entries(result.phaseShares)
      .sort((a, b) => b[1] - a[1])
      .map(
        ([phase, share]) =>
          `  ${phase.padEnd(10)} ${(100 * share).toFixed(2)}%${modelPhases.includes(phase) ? '  (model)' : ''}`,
      ),
    `load average ${result.loadAverage.map((value) => value.toFixed(1)).join(' → ')} (2 cores)`,
  ];
  return lines.join('\n');
}
