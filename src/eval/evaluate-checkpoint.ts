// Library side of `curricula eval`: load a checkpoint (or connect to a remote policy, e.g. an
// OpenAI-compatible server), build the held-out set (the run's own training mix by default), sample,
// grade and summarise.
import { UserError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { defaultWorkers, type WorkerCount } from '../policy/parallel-options.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';
import { RunStore } from '../runs/run-store.ts';
import { heldOutProblems, type MixEntry, validateMix } from '../tasks/problem-mix.ts';
import { type EvalSummary, summarizeOutcomes } from './aggregate.ts';
import { sampleAndVerify } from './evaluate.ts';

/** A policy that is not a local checkpoint (e.g. `--policy openai:URL`); it must only sample. */
export interface RemoteEvalPolicy {
  /** How the result names it (e.g. the --policy spec). */
  label: string;
  connect(): Promise<PolicyBackend>;
}

export interface EvaluateCheckpointOptions {
  /** A run, checkpoint or model directory; exactly one of checkpoint and policy. */
  checkpoint?: string;
  policy?: RemoteEvalPolicy;
  /** Default: the `tasks` mix of the run the checkpoint belongs to. */
  tasks?: MixEntry[];
  /** Replicas of the policy in worker threads (default auto = one per core; 1 = in process); see policy.workers. */
  workers?: WorkerCount;
  samples: number;
  problemsPerDifficulty: number;
  temperature: number;
  topP?: number;
  /** Default: the run's seed (0 outside a run). */
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface EvaluateCheckpointResult {
  checkpoint: string;
  samples: number;
  temperature: number;
  summary: EvalSummary;
}

export async function evaluateCheckpoint(
  options: EvaluateCheckpointOptions,
): Promise<EvaluateCheckpointResult> {
  if ((options.checkpoint === undefined) === (options.policy === undefined)) {
    throw new UserError('eval: give either --checkpoint or --policy');
  }
  const resolved = options.checkpoint === undefined ? null : resolveCheckpoint(options.checkpoint);
  const runConfig = resolved?.runDir ? readRunConfig(resolved.runDir) : null;
  const taskMix = options.tasks ?? runConfig?.tasks;
  if (!taskMix) {
    throw new UserError(
      `${options.checkpoint ?? options.policy?.label} is not inside a run directory; say which tasks to evaluate with --tasks`,
    );
  }
  validateMix(taskMix, '--tasks');
  const seed = options.seed ?? runConfig?.seed ?? 0;
  const problems = heldOutProblems(taskMix, options.problemsPerDifficulty, seed);
  if (problems.length === 0) {
    throw new UserError(
      `the held-out set of ${JSON.stringify(taskMix)} is empty; choose other tasks or levels`,
    );
  }
  const backend: PolicyBackend = resolved
    ? await loadEmbeddedPolicy(resolved.modelPath, options.workers ?? defaultWorkers)
    : await options.policy!.connect();
  let outcomes: Awaited<ReturnType<typeof sampleAndVerify>>;
  try {
    outcomes = await sampleAndVerify(backend, problems, {
      samples: options.samples,
      temperature: options.temperature,
      topP: options.topP,
      seed,
      onProgress: options.onProgress,
    });
  } finally {
    await backend.close?.();
  }
  return {
    checkpoint: resolved ? resolved.modelPath : options.policy!.label,
    samples: options.samples,
    temperature: options.temperature,
    summary: summarizeOutcomes(outcomes),
  };
}

function readRunConfig(runDir: string): { tasks?: MixEntry[]; seed?: number } {
  const store = RunStore.read(runDir);
  try {
    return store.config<{ tasks?: MixEntry[]; seed?: number }>();
  } finally {
    store.close();
  }
}
