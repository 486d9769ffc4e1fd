// Library side of `curricula eval`: load a checkpoint (or connect to a remote policy, e.g. an
// OpenAI-compatible server), build the problems (a problem set the user gives, or the held-out set of a
// task mix: the run's own training mix by default), sample, grade and summarise.
import { UserError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { buildTools, type EnvironmentBlock, environmentBlockSchema } from '../environments/block.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { defaultWorkers, type WorkerCount } from '../policy/parallel-options.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';
import { RunStore } from '../runs/run-store.ts';
import { heldOutProblems, type MixEntry, validateMix } from '../tasks/problem-mix.ts';
import { type EvalSummary, summarizeOutcomes } from './aggregate.ts';
import { sampleAndVerify } from './evaluate.ts';
import { sampleEpisodesAndVerify } from './evaluate-episodes.ts';

/** A policy that is not a local checkpoint (e.g. `--policy openai:URL`); it must only sample. */
export interface RemoteEvalPolicy {
  /** How the result names it (e.g. the --policy spec). */
  label: string;
  /** Opens the policy (it is closed when the evaluation ends). */
  connect(): Promise<PolicyBackend>;
}

export interface EvaluateCheckpointOptions {
  /** A run, checkpoint or model directory; exactly one of checkpoint and policy. */
  checkpoint?: string;
  policy?: RemoteEvalPolicy;
  /** Default: the `tasks` mix of the run the checkpoint belongs to. */
  tasks?: MixEntry[];
  /** Instead of a task mix's held-out set: these problems (e.g. a JSONL problem set), all of them. */
  problems?: { source: string; problems: readonly Problem[] };
  /** Also return each problem's count of correct samples (`perProblem`). */
  perProblem?: boolean;
  /** Replicas of the policy in worker threads (default auto = one per core; 1 = in process); see policy.workers. */
  workers?: WorkerCount;
  samples: number;
  problemsPerDifficulty: number;
  temperature: number;
  topP?: number;
  /** Default: the run's seed (0 outside a run). */
  seed?: number;
  /**
   * Run every sample as an episode of this environment (tools included; src/environments/block.ts); null:
   * single-turn. Default: the run's own `rollout.environment` when it has one, else single-turn.
   */
  environment?: EnvironmentBlock | null;
  onProgress?: (done: number, total: number) => void;
}

/** What an evaluation returns: the policy evaluated, its settings, the summary and optionally per-problem counts. */
export interface EvaluateCheckpointResult {
  checkpoint: string;
  samples: number;
  temperature: number;
  summary: EvalSummary;
  /** Where the problems came from: a problem-set file, or 'held-out'. */
  problems: string;
  /** The environment the samples ran in (its tools), or absent when single-turn. */
  environment?: { name: string; tools: string[] };
  /** With `perProblem`: each problem's id, task, difficulty and correct samples out of `samples`. */
  perProblem?: { id: string; task: string; difficulty: number; correct: number }[];
}

export async function evaluateCheckpoint(
  options: EvaluateCheckpointOptions,
): Promise<EvaluateCheckpointResult> {
  if ((options.checkpoint === undefined) === (options.policy === undefined)) {
    throw new UserError('eval: give either --checkpoint or --policy');
  }
  if (options.problems && options.tasks)
    throw new UserError('eval: give either a problem set or --tasks, not both');
  const resolved = options.checkpoint === undefined ? null : resolveCheckpoint(options.checkpoint);
  const runConfig = resolved?.runDir ? readRunConfig(resolved.runDir) : null;
  const seed = options.seed ?? runConfig?.seed ?? 0;
  const environment = options.environment === undefined ? storedEnvironment(runConfig) : options.environment;
  const problems = options.problems
    ? [...options.problems.problems]
    : heldOut(options.tasks ?? runConfig?.tasks, options.problemsPerDifficulty, seed, options);
  if (problems.length === 0) {
    throw new UserError(
      options.problems
        ? `the problem set ${options.problems.source} holds no problems`
        : `the held-out set of ${JSON.stringify(options.tasks ?? runConfig?.tasks)} is empty; choose other tasks or levels`,
    );
  }
  const backend: PolicyBackend = resolved
    ? await loadEmbeddedPolicy(resolved.modelPath, options.workers ?? defaultWorkers)
    : await options.policy!.connect();
  let outcomes: Awaited<ReturnType<typeof sampleAndVerify>>;
  const sampling = {
    samples: options.samples,
    temperature: options.temperature,
    topP: options.topP,
    seed,
    onProgress: options.onProgress,
  };
  const built = environment ? buildTools(environment) : null;
  try {
    outcomes =
      environment && built
        ? await sampleEpisodesAndVerify(
            backend,
            problems,
            { block: environment, tools: built.tools },
            sampling,
          )
        : await sampleAndVerify(backend, problems, sampling);
  } finally {
    built?.close();
    await backend.close?.();
  }
  return {
    checkpoint: resolved ? resolved.modelPath : options.policy!.label,
    samples: options.samples,
    temperature: options.temperature,
    summary: summarizeOutcomes(outcomes),
    problems: options.problems?.source ?? 'held-out',
    ...(environment
      ? {
          environment: {
            name: environment.name,
            tools: 'tools' in environment ? [...environment.tools] : [],
          },
        }
      : {}),
    ...(options.perProblem
      ? {
          perProblem: outcomes.map(({ problem, correct }) => ({
            id: problem.id,
            task: problem.task,
            difficulty: problem.difficulty,
            correct: correct.filter(Boolean).length,
          })),
        }
      : {}),
  };
}

/** The held-out problems of a task mix (the run's own when none is given). */
function heldOut(
  taskMix: MixEntry[] | undefined,
  perDifficulty: number,
  seed: number,
  options: EvaluateCheckpointOptions,
): Problem[] {
  if (!taskMix) {
    throw new UserError(
      `${options.checkpoint ?? options.policy?.label} is not inside a run directory; say which tasks to evaluate with --tasks (or give --problem-set)`,
    );
  }
  validateMix(taskMix, '--tasks');
  return heldOutProblems(taskMix, perDifficulty, seed);
}

/** The run's own environment block (defaults filled), or null when it trains single-turn. */
function storedEnvironment(config: StoredRunConfig | null): EnvironmentBlock | null {
  const block = config?.rollout?.environment;
  return block ? (environmentBlockSchema.parse(block) ?? null) : null;
}

interface StoredRunConfig {
  tasks?: MixEntry[];
  seed?: number;
  rollout?: { environment?: unknown };
}

function readRunConfig(runDir: string): StoredRunConfig {
  const store = RunStore.read(runDir);
  try {
    return store.config<StoredRunConfig>();
  } finally {
    store.close();
  }
}
