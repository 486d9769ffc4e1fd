// `curricula bench remote --only tinker`: the cost of driving an RL step over the Tinker protocol (issue 11's
// target: overhead ≤ 15% against the same step in process, identical metrics at the same seed).
//
// Two lanes run the same RL config and seed from the same checkpoint (default: the base-size demo-cold
// model), their steps alternating so that a busy machine slows both alike; medians of the timed steps:
// - in process: the EmbeddedBackend (policy.workers 1), sampling with per-prompt seeds
//   (PromptSeededPolicy, src/policy/prompt-seeds.ts) — the same batched sample call and cost as a plain
//   workers-1 run, but the random draws a Tinker client asks for;
// - over HTTP: policy.backend tinker (protobuf codec) against `curricula serve --tinker` built in this
//   process (buildServer, loopback, port 0, server policy workers 1). Client and server share the two
//   cores of this process, as they would on one machine. With `server: 'process'` the server is a
//   `curricula serve --tinker` child process instead, as a remote engine is: its HTTP handling then runs
//   in its own process, beside the client's (the sample-call counts are not visible from outside).
// Agreement: per step, the sampled completions and rewards of the two lanes are compared, and every
// metric but perf/* is compared (largest absolute difference, relative to max(1, |value|)). They agree
// up to float32 rounding: the server batches the asample requests that arrive together
// (src/server/tinker/sample-batcher.ts), but a batch may hold fewer prompts than the in-process call
// (other matrix shapes), which can in principle flip a sampled token; the report says so when it
// happens rather than hiding it. It also gives each lane's phase medians (perf/time/*) and how many
// policy sample calls the server made for its asample requests.
// Deviation from the target's wording: the in-process lane is not the plain workers-1 run, whose sampler
// draws every prompt from one shared Rng (a Tinker server cannot reproduce that one request per prompt).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseConfig } from '../core/config.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { PromptSeededPolicy } from '../policy/prompt-seeds.ts';
import { buildServer } from '../server/app.ts';
import { type RlConfig, rlConfigSchema } from '../training/rl/config.ts';
import type { RlContext } from '../training/rl/context.ts';
import { buildContext } from '../training/rl/setup.ts';
import { rlStep, type StepReport } from '../training/rl/step.ts';
import { median } from './median.ts';
import { type ServeProcess, startServeProcess } from './serve-process.ts';

export interface TinkerBenchOptions {
  /** Model directory both lanes start from (the server serves it as its base model). */
  checkpoint: string;
  steps: number;
  warmup: number;
  batchSize: number;
  groupSize: number;
  maxTokens: number;
  seed: number;
  /** 'thread': the server in this process (default); 'process': a `curricula serve` child process. */
  server?: 'thread' | 'process';
  onProgress?: (line: string) => void;
}

export interface TinkerBenchLane {
  /** Median seconds per RL step. */
  stepSeconds: number;
  stepsSeconds: number[];
  /** Median seconds of each phase the step times (perf/time/<phase>: sample, reference, update, …). */
  phaseSeconds: Record<string, number>;
}

export interface TinkerBenchResult {
  options: Omit<TinkerBenchOptions, 'onProgress'>;
  inProcess: TinkerBenchLane;
  overHttp: TinkerBenchLane;
  /** The server's asample requests and the policy sample calls it batched them into (all steps); null
   * when the server ran as a child process. */
  serverSampling: { requests: number; sampleCalls: number } | null;
  /** overHttp median / inProcess median − 1. */
  overhead: number;
  targetOverhead: number;
  agreement: {
    /** Every step (warm-up included) sampled the same completions with the same rewards. */
    samplesEqual: boolean;
    /** Steps whose samples differ. */
    stepsWithDifferentSamples: number[];
    /** Largest |a − b| / max(1, |a|) over the metrics of every step (perf/* excluded). */
    maxMetricDifference: number;
    /** The metric where that largest difference is, `step:name`. */
    worstMetric: string | null;
    /** Metrics one lane reported and the other did not. */
    missingMetrics: string[];
    /** samplesEqual and maxMetricDifference ≤ tolerance. */
    agree: boolean;
    tolerance: number;
  };
  loadAverage: [number, number];
}

const tolerance = 1e-5;

function benchConfig(options: TinkerBenchOptions, policy: Record<string, unknown>): RlConfig {
  return parseConfig(
    rlConfigSchema,
    {
      name: 'bench-remote-tinker',
      seed: options.seed,
      init: { checkpoint: options.checkpoint },
      tasks: [{ task: 'addition', difficulties: [1, 2, 3] }],
      poolSize: 64,
      policy,
      rollout: { groupSize: options.groupSize, maxTokens: options.maxTokens },
      train: { steps: options.steps + options.warmup, batchSize: options.batchSize, learningRate: 1e-4 },
    },
    'bench remote --only tinker',
  );
}

/** What a step sampled and scored: completion and reward of every rollout, in order. */
function sampled(report: StepReport): string[] {
  return report.groups.flatMap((group) =>
    group.completions.map(
      (completion, i) => `${group.attempt.problem.id}\u0000${completion}\u0000${group.rewards[i]}`,
    ),
  );
}

function comparableMetrics(report: StepReport): Map<string, number> {
  return new Map(Object.entries(report.metrics).filter(([name]) => !name.startsWith('perf/')));
}

async function startServer(
  checkpoint: string,
  stateDir: string,
): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer({
    protocols: ['tinker'],
    context: {
      checkpoint,
      modelName: basename(checkpoint),
      loadPolicy: () => EmbeddedBackend.load(checkpoint),
      loadPolicyFrom: (dir) => EmbeddedBackend.load(dir),
      stateDir,
      // The protocol's cost, as `curricula serve --tinker` runs without --state-dir: per-step durability
      // (~0.2-0.3 s of saving per optim_step, docs/tinker-serving.md) is a separate, opt-in cost.
      tinker: { durable: false },
    },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

export async function runTinkerBench(options: TinkerBenchOptions): Promise<TinkerBenchResult> {
  const loadStart = loadavg()[0];
  const stateDir = mkdtempSync(join(tmpdir(), 'curricula-bench-tinker-'));
  const contexts: RlContext[] = [];
  let server: BenchServer | undefined;
  try {
    server = await startBenchServer(options, stateDir);
    const [local, remote] = await buildLanes(options, server.url, contexts);
    const run = await alternateSteps(options, local, remote);
    return benchResult(options, run, server.app, loadStart);
  } finally {
    for (const ctx of contexts) {
      await ctx.policy.close?.();
      await ctx.reference?.close?.();
    }
    await server?.app?.close();
    await server?.child?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** The Tinker server of the HTTP lane: in this process (app) or a child process (child). */
interface BenchServer {
  url: string;
  app?: FastifyInstance;
  child?: ServeProcess;
}

async function startBenchServer(options: TinkerBenchOptions, stateDir: string): Promise<BenchServer> {
  if (options.server === 'process') {
    const args = ['--checkpoint', options.checkpoint, '--tinker', '--workers', '1'];
    const child = await startServeProcess([...args, '--state-dir', stateDir, '--no-durable']);
    return { url: child.url, child };
  }
  const { app, url } = await startServer(options.checkpoint, stateDir);
  return { url, app };
}

/**
 * The two lanes' contexts, [in process, over HTTP], each pushed onto `contexts` (closed by the caller)
 * as soon as it is built.
 */
async function buildLanes(
  options: TinkerBenchOptions,
  url: string,
  contexts: RlContext[],
): Promise<[RlContext, RlContext]> {
  const local = await buildContext(benchConfig(options, { workers: 1 }));
  contexts.push(local);
  if (!(local.policy instanceof EmbeddedBackend))
    throw new Error('bench: workers 1 did not give the embedded backend');
  local.policy = new PromptSeededPolicy(local.policy);
  const remote = await buildContext(
    benchConfig(options, {
      workers: 1,
      backend: 'tinker',
      tinker: { url, baseModel: basename(options.checkpoint), codec: 'protobuf' },
    }),
  );
  contexts.push(remote);
  return [local, remote];
}

/** What the alternating steps measured: timings after the warm-up, and the agreement of every step. */
interface AlternatingRun {
  seconds: { local: number[]; remote: number[] };
  /** perf/time/<phase> values per phase */
  phases: { local: Map<string, number[]>; remote: Map<string, number[]> };
  differentSteps: number[];
  missing: Set<string>;
  worst: { difference: number; metric: string | null };
}

/** Steps the two lanes in turn (in process first), warm-up included. */
async function alternateSteps(
  options: TinkerBenchOptions,
  local: RlContext,
  remote: RlContext,
): Promise<AlternatingRun> {
  const run: AlternatingRun = {
    seconds: { local: [], remote: [] },
    phases: { local: new Map(), remote: new Map() },
    differentSteps: [],
    missing: new Set(),
    worst: { difference: 0, metric: null },
  };
  for (let step = 1; step <= options.warmup + options.steps; step++) {
    const [localReport, localSeconds] = await timedStep(local, step);
    const [remoteReport, remoteSeconds] = await timedStep(remote, step);
    if (step > options.warmup) {
      run.seconds.local.push(localSeconds);
      run.seconds.remote.push(remoteSeconds);
      addPhases(run.phases.local, localReport);
      addPhases(run.phases.remote, remoteReport);
    }
    compareSteps(run, step, localReport, remoteReport);
    options.onProgress?.(
      `step ${step}${step <= options.warmup ? ' (warm-up)' : ''}: in process ${localSeconds.toFixed(2)} s, over HTTP ${remoteSeconds.toFixed(2)} s`,
    );
  }
  return run;
}

async function timedStep(ctx: RlContext, step: number): Promise<[StepReport, number]> {
  const start = performance.now();
  const report = await rlStep(ctx, step, 1e-4);
  return [report, (performance.now() - start) / 1000];
}

function addPhases(into: Map<string, number[]>, report: StepReport): void {
  for (const [key, value] of Object.entries(report.metrics)) {
    if (!key.startsWith('perf/time/')) continue;
    const phase = key.slice('perf/time/'.length);
    if (!into.has(phase)) into.set(phase, []);
    into.get(phase)!.push(value);
  }
}

/** Records whether one step's samples differ, metrics missing on one side, and the largest metric difference. */
function compareSteps(
  run: AlternatingRun,
  step: number,
  localReport: StepReport,
  remoteReport: StepReport,
): void {
  if (sampled(localReport).join('\u0001') !== sampled(remoteReport).join('\u0001'))
    run.differentSteps.push(step);
  const localMetrics = comparableMetrics(localReport);
  const remoteMetrics = comparableMetrics(remoteReport);
  for (const name of new Set([...localMetrics.keys(), ...remoteMetrics.keys()])) {
    const a = localMetrics.get(name);
    const b = remoteMetrics.get(name);
    if (a === undefined || b === undefined) {
      run.missing.add(name);
      continue;
    }
    // NaN on both sides agrees; NaN on one side is an infinite difference.
    const difference = Number.isNaN(a) && Number.isNaN(b) ? 0 : Math.abs(a - b) / Math.max(1, Math.abs(a));
    if (!(difference <= run.worst.difference))
      run.worst = { difference: Number.isNaN(difference) ? Infinity : difference, metric: `${step}:${name}` };
  }
}

function laneSummary(stepsSeconds: number[], phaseLists: Map<string, number[]>): TinkerBenchLane {
  return {
    stepSeconds: median(stepsSeconds),
    stepsSeconds,
    phaseSeconds: Object.fromEntries([...phaseLists].map(([phase, values]) => [phase, median(values)])),
  };
}

function benchResult(
  options: TinkerBenchOptions,
  run: AlternatingRun,
  app: FastifyInstance | undefined,
  loadStart: number,
): TinkerBenchResult {
  const { differentSteps, missing, worst } = run;
  const inProcess = laneSummary(run.seconds.local, run.phases.local);
  const overHttp = laneSummary(run.seconds.remote, run.phases.remote);
  const { onProgress: _progress, ...rest } = options;
  return {
    options: rest,
    inProcess,
    overHttp,
    serverSampling: app ? { ...(app.tinkerSampleStats ?? { requests: 0, sampleCalls: 0 }) } : null,
    overhead: overHttp.stepSeconds / inProcess.stepSeconds - 1,
    targetOverhead: 0.15,
    agreement: {
      samplesEqual: differentSteps.length === 0,
      stepsWithDifferentSamples: differentSteps,
      maxMetricDifference: worst.difference,
      worstMetric: worst.metric,
      missingMetrics: [...missing].sort(),
      agree: differentSteps.length === 0 && missing.size === 0 && worst.difference <= tolerance,
      tolerance,
    },
    loadAverage: [loadStart, loadavg()[0]],
  };
}

export function formatTinkerBench(result: TinkerBenchResult): string {
  const { options, agreement } = result;
  const met = result.overhead <= result.targetOverhead ? 'met' : 'NOT met';
  return [
    `tinker: RL step of ${basename(options.checkpoint)}, ${options.batchSize} problems × ${options.groupSize} samples, max ${options.maxTokens} tokens, ${options.steps} timed steps after ${options.warmup} warm-up, alternating`,
    `  in process (workers 1): median ${result.inProcess.stepSeconds.toFixed(3)} s/step`,
    `  over HTTP (Tinker protobuf, loopback, server workers 1, ${options.server === 'process' ? 'server in a child process' : 'server in this process'}): median ${result.overHttp.stepSeconds.toFixed(3)} s/step`,
    `  phases (median s, in process / over HTTP): ${Object.keys(result.overHttp.phaseSeconds)
      .map(
        (phase) =>
          `${phase} ${(result.inProcess.phaseSeconds[phase] ?? Number.NaN).toFixed(3)} / ${result.overHttp.phaseSeconds[phase].toFixed(3)}`,
      )
      .join(', ')}`,
    result.serverSampling
      ? `  server: ${result.serverSampling.requests} asample requests in ${result.serverSampling.sampleCalls} sample calls`
      : '  server: a child process (its sample calls are not counted)',
    `  overhead ${(100 * result.overhead).toFixed(1)}% (target ≤ ${100 * result.targetOverhead}%: ${met})`,
    `  samples ${agreement.samplesEqual ? 'identical' : `DIFFER at steps ${agreement.stepsWithDifferentSamples.join(', ')}`}; metrics ${agreement.agree ? 'agree' : 'DO NOT agree'} (largest relative difference ${agreement.maxMetricDifference.toExponential(1)}${agreement.worstMetric ? ` at ${agreement.worstMetric}` : ''}, tolerance ${agreement.tolerance})${agreement.missingMetrics.length ? `; missing on one side: ${agreement.missingMetrics.join(', ')}` : ''}`,
    `  load average ${result.loadAverage.map((value) => value.toFixed(1)).join(' → ')} (${cpus().length} cores)`,
  ].join('\n');
}
