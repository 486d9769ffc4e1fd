// `curricula bench train`: where the time of a whole RL step goes. Runs real RL steps (sampling, the
// verifier reward, GRPO, PPO update, run-store logging) on a fresh embedded model and splits each step
// into model compute (sampling, reference and policy forward/backward/optimizer) and everything else
// (selection, guidance, rewards, advantages, selector updates, metric assembly, SQLite/JSONL logging).
// Target: everything outside model compute < 5% of the step. With several --workers counts (1,2), each
// count runs the same config and seed in its own context, their steps alternating, and the report gives
// each count's speed-up over the first (issue 10's target: ≥ 1.8× for 2 workers over 1), next to the
// ceiling this machine allows (core-contention.ts, measured in the same run before the steps; issue 29
// item 4: ≥ 1.8× or ≥ 95% of the ceiling).
import { rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../core/config.ts';
import type { EngineThreads, TrainEngine, WorkerCount } from '../policy/parallel-options.ts';
import { RunStore } from '../runs/run-store.ts';
import { type RlConfig, rlConfigSchema } from '../training/rl/config.ts';
import type { RlContext } from '../training/rl/context.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep } from '../training/rl/step.ts';
import { type CoreContention, measureCoreContention } from './core-contention.ts';
import { median } from './policy-bench.ts';

/** The demo's cold start (shipped; src/ and dist/ both lie two levels below the package root). */
const demoCheckpoint = fileURLToPath(new URL('../../examples/checkpoints/demo-cold', import.meta.url));

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
  /**
   * policy.workers counts measured side by side (default [auto]: one per core; 1 = in process). Each
   * count has its own run of the same config and seed; their steps alternate, so that a busy machine
   * slows every count alike.
   */
  workers?: WorkerCount[];
  /** policy.engine of every count (default tfjs; native takes policy.threads auto: cores per worker). */
  engine?: TrainEngine;
  /** With engine native: policy.threads of every count (default auto: the cores per worker). */
  engineThreads?: EngineThreads;
  /**
   * Measure the core-contention ceiling first (default: when some count is ≥ 2 on a machine with ≥ 2
   * cores), with the demo checkpoint's step on the same engine.
   */
  ceiling?: boolean;
  onProgress?: (line: string) => void;
}

/** The medians of one worker count. */
export interface TrainBenchRun {
  workers: WorkerCount;
  /** Median seconds per step, including logging. */
  stepSeconds: number;
  /** Median tokens (prompt + completion) processed per second of whole step. */
  tokensPerSecond: number;
  /** Median share of the step outside model compute. */
  outsideModelShare: number;
  /** Median share of each phase (plus 'logging' and 'other'). */
  phaseShares: Record<string, number>;
  /** Step seconds of each timed step. */
  stepsSeconds: number[];
  /** The first count's median step time divided by this one's (1 for the first). */
  speedup: number;
}

export interface TrainBenchResult {
  options: Omit<TrainBenchOptions, 'onProgress'>;
  /** One entry per worker count, in the order given. */
  runs: TrainBenchRun[];
  targetOutsideModelShare: number;
  /** Issue 10's target for the speed-up of 2 workers over 1. */
  targetSpeedup: number;
  /** The share of the ceiling that also meets the speed-up target (issue 29: 95%). */
  targetShareOfCeiling: number;
  /** The machine's two-core ceiling (core-contention.ts), or null when not measured. */
  ceiling: CoreContention | null;
  loadAverage: [number, number];
}

/** One worker count's run: its context, run store and the per-step figures. */
interface Lane {
  workers: WorkerCount;
  ctx: RlContext;
  store: RunStore;
  dir: string;
  stepSeconds: number[];
  tokensPerSecond: number[];
  outside: number[];
  shares: Map<string, number[]>;
}

function benchConfig(options: TrainBenchOptions, workers: WorkerCount): RlConfig {
  return parseConfig(
    rlConfigSchema,
    {
      name: 'bench-train',
      seed: 11,
      model: { preset: options.preset },
      tasks: [{ task: 'addition', difficulties: [1, 2, 3] }],
      poolSize: options.poolSize,
      selector: { name: options.selector },
      policy: {
        workers,
        ...(options.engine ? { engine: options.engine } : {}),
        ...(options.engine === 'native' && options.engineThreads !== undefined
          ? { threads: options.engineThreads }
          : {}),
      },
      rollout: { groupSize: options.groupSize, maxTokens: 48 },
      train: { steps: options.steps + options.warmup, batchSize: options.batchSize, learningRate: 1e-4 },
    },
    'bench train',
  );
}

/** Runs RL step `step` of one lane and records its figures unless it is a warm-up step. */
async function timeStep(lane: Lane, step: number, options: TrainBenchOptions): Promise<void> {
  const start = performance.now();
  const report = await rlStep(lane.ctx, step, 1e-4);
  const logStart = performance.now();
  lane.store.logMetrics(step, report.metrics);
  lane.store.logSamples(
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
  if (step <= options.warmup) return;
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
  lane.stepSeconds.push(total);
  lane.tokensPerSecond.push(tokens / total);
  lane.outside.push((total - model) / total);
  for (const [phase, seconds] of Object.entries(phaseSeconds)) {
    if (!lane.shares.has(phase)) lane.shares.set(phase, []);
    lane.shares.get(phase)!.push(seconds / total);
  }
  options.onProgress?.(
    `workers ${lane.workers}, step ${step - options.warmup}/${options.steps}: ${total.toFixed(2)} s, outside model ${(100 * lane.outside.at(-1)!).toFixed(2)}%`,
  );
}

export async function runTrainBench(options: TrainBenchOptions): Promise<TrainBenchResult> {
  const counts = options.workers ?? ['auto'];
  const lanes: Lane[] = [];
  const loadStart = loadavg()[0];
  const wantsCeiling =
    options.ceiling ?? (cpus().length >= 2 && counts.some((count) => count === 'auto' || count >= 2));
  let ceiling: CoreContention | null = null;
  if (wantsCeiling) {
    options.onProgress?.('measuring the two-core ceiling (one training process alone, then two at once)');
    ceiling = await measureCoreContention({
      checkpoint: demoCheckpoint,
      steps: Math.max(5, options.steps),
      engine: options.engine,
    });
    options.onProgress?.(
      `ceiling: slowdown ${ceiling.slowdown.toFixed(3)} with both cores busy, so at most ${ceiling.speedupCeiling.toFixed(2)}× for 2 workers`,
    );
  }
  try {
    for (const [index, workers] of counts.entries()) {
      const config = benchConfig(options, workers);
      const dir = join(tmpdir(), `curricula-bench-train-${process.pid}-${index}`);
      rmSync(dir, { recursive: true, force: true });
      const store = RunStore.create(dir, config);
      let ctx: RlContext;
      try {
        ctx = await buildContext(config);
      } catch (error) {
        store.close();
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      lanes.push({
        workers,
        ctx,
        store,
        dir,
        stepSeconds: [],
        tokensPerSecond: [],
        outside: [],
        shares: new Map(),
      });
    }
    for (let step = 1; step <= options.warmup + options.steps; step++)
      for (const lane of lanes) await timeStep(lane, step, options);
    const { onProgress: _progress, ...rest } = options;
    const first = median(lanes[0].stepSeconds);
    return {
      options: { ...rest, workers: counts },
      runs: lanes.map((lane) => ({
        workers: lane.workers,
        stepSeconds: median(lane.stepSeconds),
        tokensPerSecond: median(lane.tokensPerSecond),
        outsideModelShare: median(lane.outside),
        phaseShares: Object.fromEntries([...lane.shares].map(([phase, values]) => [phase, median(values)])),
        stepsSeconds: lane.stepSeconds,
        speedup: first / median(lane.stepSeconds),
      })),
      targetOutsideModelShare: 0.05,
      targetSpeedup: 1.8,
      targetShareOfCeiling: 0.95,
      ceiling,
      loadAverage: [loadStart, loadavg()[0]],
    };
  } finally {
    for (const lane of lanes) {
      await lane.ctx.policy.close?.();
      await lane.ctx.reference?.close?.();
      lane.store.close();
      rmSync(lane.dir, { recursive: true, force: true });
    }
  }
}

export function formatTrainBench(result: TrainBenchResult): string {
  const { options } = result;
  const lines = [
    `RL step on the ${options.preset} model: ${options.batchSize} problems × ${options.groupSize} samples, pool ${options.poolSize}, selector ${options.selector}`,
    `engine: ${options.engine ?? 'tfjs'}${options.engine === 'native' ? `, threads ${options.engineThreads ?? 'auto'} per worker` : ''}`,
  ];
  for (const run of result.runs) {
    const speedup =
      run === result.runs[0] ? '' : `, ${run.speedup.toFixed(2)}× workers ${result.runs[0].workers}`;
    lines.push(
      `workers ${run.workers}: median step ${run.stepSeconds.toFixed(2)} s, ${Math.round(run.tokensPerSecond)} tokens/s${speedup}`,
      `  outside model compute: ${(100 * run.outsideModelShare).toFixed(2)}% of the step (target < ${100 * result.targetOutsideModelShare}%)`,
      '  phase shares (median):',
      ...Object.entries(run.phaseShares)
        .sort((a, b) => b[1] - a[1])
        .map(
          ([phase, share]) =>
            `    ${phase.padEnd(10)} ${(100 * share).toFixed(2)}%${modelPhases.includes(phase) ? '  (model)' : ''}`,
        ),
    );
  }
  const one = result.runs.find((run) => run.workers === 1);
  const two = result.runs.find((run) => run.workers === 2);
  if (one && two) {
    const speedup = one.stepSeconds / two.stepSeconds;
    const { ceiling } = result;
    const share = ceiling ? speedup / ceiling.speedupCeiling : null;
    const met = speedup >= result.targetSpeedup || (share !== null && share >= result.targetShareOfCeiling);
    lines.push(
      `speed-up of 2 workers over 1: ${speedup.toFixed(2)}×` +
        (ceiling
          ? `; ceiling here ${ceiling.speedupCeiling.toFixed(2)}× (slowdown ${ceiling.slowdown.toFixed(3)} with both cores busy, measured in this run), ${(100 * (share as number)).toFixed(0)}% of it`
          : '; ceiling not measured') +
        ` (target ≥ ${result.targetSpeedup}× or ≥ ${100 * result.targetShareOfCeiling}% of the ceiling: ${met ? 'met' : 'NOT met'})`,
    );
  }
  lines.push(
    `load average ${result.loadAverage.map((value) => value.toFixed(1)).join(' → ')} (${cpus().length} cores)`,
  );
  return lines.join('\n');
}
