// Library side of `curricula eval`: load a checkpoint (or connect to a remote policy, e.g. an
// OpenAI-compatible server), build the problems (a problem set the user gives, or the held-out set of a
// task mix: the run's own training mix by default), sample, grade and summarise.
import type { ChatApi } from '../backends/openai/chat-completions.ts';
import { UserError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { buildTools, type EnvironmentBlock, environmentBlockSchema } from '../environments/block.ts';
import type { Tool } from '../environments/tools/define.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { defaultWorkers, type WorkerCount } from '../policy/parallel-options.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';
import { RunStore } from '../runs/run-store.ts';
import { heldOutProblems, type MixEntry, validateMix } from '../tasks/problem-mix.ts';
import { type EvalSummary, summarizeOutcomes } from './aggregate.ts';
import { sampleAndVerify } from './evaluate.ts';
import { sampleChatApiAndVerify } from './evaluate-chat-api.ts';
import { sampleEpisodesAndVerify } from './evaluate-episodes.ts';

/** A policy that is not a local checkpoint (e.g. `--policy openai:URL`); it must only sample. */
export interface RemoteEvalPolicy {
  /** How the result names it (e.g. the --policy spec). */
  label: string;
  /** Opens the policy (it is closed when the evaluation ends); absent with chatApi. */
  connect?(): Promise<PolicyBackend>;
  /**
   * Instead of connect: a chat model's API, whose samples run at the level of messages in the
   * environment (evaluate-chat-api.ts); an environment is then required.
   */
  chatApi?: ChatApi;
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
  const sampling = {
    samples: options.samples,
    temperature: options.temperature,
    topP: options.topP,
    seed,
    onProgress: options.onProgress,
  };
  const built = environment ? buildTools(environment) : null;
  let outcomes: Awaited<ReturnType<typeof sampleAndVerify>>;
  try {
    const chatApi = options.policy?.chatApi;
    if (chatApi) {
      if (!environment || !built)
        throw new UserError(
          'eval over a chat API runs every sample in an environment: give --tools or --environment (or a run whose config has rollout.environment)',
        );
      outcomes = await sampleChatApiAndVerify(
        chatApi,
        problems,
        { block: environment, tools: built.tools },
        sampling,
      );
    } else
      outcomes = await sampleWithBackend(
        options,
        resolved?.modelPath,
        problems,
        environment,
        built,
        sampling,
      );
  } finally {
    built?.close();
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

/** Samples through a policy backend (the checkpoint's, or a remote one), in the environment when there is one. */
async function sampleWithBackend(
  options: EvaluateCheckpointOptions,
  modelPath: string | undefined,
  problems: Problem[],
  environment: EnvironmentBlock | null,
  built: { tools: Tool[] } | null,
  sampling: Parameters<typeof sampleAndVerify>[2],
): Promise<Awaited<ReturnType<typeof sampleAndVerify>>> {
  const connect = options.policy?.connect;
  if (modelPath === undefined && !connect)
    throw new UserError('eval: the remote policy has no way to connect');
  const backend: PolicyBackend =
    modelPath !== undefined
      ? await loadEmbeddedPolicy(modelPath, options.workers ?? defaultWorkers)
      : await (connect as () => Promise<PolicyBackend>)();
  try {
    return environment && built
      ? await sampleEpisodesAndVerify(backend, problems, { block: environment, tools: built.tools }, sampling)
      : await sampleAndVerify(backend, problems, sampling);
  } finally {
    await backend.close?.();
  }
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
