// The config of an evaluation (`curricula eval`, and `evaluate` in the public API, src/api/evaluate.ts):
// one strict schema for the flags and the API object, and the function both call. It resolves what the
// command line used to resolve itself: the temperature default (greedy for one sample, 1 otherwise) and
// reading a JSONL problem set; then evaluateCheckpoint samples, grades and summarises.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { UserError } from '../core/errors.ts';
import { boundedCount, sizeLimits } from '../core/size-limits.ts';
import { environmentBlockSchema } from '../environments/block.ts';
import { workerCountSchema } from '../policy/parallel-options.ts';
import { mixEntrySchema } from '../tasks/problem-mix.ts';
import { readProblemSet } from '../tasks/problem-set.ts';
import {
  type EvaluateCheckpointResult,
  evaluateCheckpoint,
  type RemoteEvalPolicy,
} from './evaluate-checkpoint.ts';

/** Schema of an evaluation config (`evaluate()`; the flags of `curricula eval`). */
export const evaluateConfigSchema = z.strictObject({
  /** A run directory (its best checkpoint), a checkpoint or a model directory. Absent only with a remote policy. */
  checkpoint: z.string().optional(),
  /** Tasks and difficulties whose held-out problems are evaluated (default: the run's training mix). */
  tasks: z.array(mixEntrySchema).min(1).optional(),
  /** Instead of `tasks`: every problem of this JSONL problem set (docs/tasks.md); difficulty may be absent. */
  problemSet: z.string().optional(),
  /** Also report each problem's count of correct samples. */
  perProblem: z.boolean().default(false),
  /** Completions per problem (n); pass@k is reported for powers of two ≤ n. */
  samples: boundedCount(sizeLimits.samples, 'completions per problem').default(1),
  /** Held-out problems per task and difficulty. */
  problemsPerDifficulty: boundedCount(
    sizeLimits.problemsPerDifficulty,
    'held-out problems per task and difficulty, each generated and sampled',
  ).default(50),
  /** Sampling temperature (default: 0 = greedy for one sample, 1 otherwise). */
  temperature: z.number().min(0).optional(),
  /** Nucleus sampling mass. */
  topP: z.number().gt(0).max(1).default(1),
  /** Seed of the held-out set and of sampling (default: the run's seed, 0 outside a run). */
  seed: z.number().int().optional(),
  /** Replicas of the policy in worker threads (default auto = one per core; 1 = in process). */
  workers: workerCountSchema.optional(),
  /**
   * Run every sample as an episode of this environment (a train config's `rollout.environment` block:
   * tools, limits), or 'none' for single-turn sampling. Default: the run's own environment, if any.
   */
  environment: z.union([z.literal('none'), environmentBlockSchema.unwrap()]).optional(),
});

/** An evaluation config as a user writes it (defaults optional). */
export type EvaluateConfigInput = z.input<typeof evaluateConfigSchema>;
export type EvaluateConfig = z.output<typeof evaluateConfigSchema>;

/** Options of `evaluate` that are not part of the config: a remote policy, progress, the config's name in errors. */
export interface EvaluateOptions {
  /** A policy that is not a local checkpoint (e.g. an OpenAI-compatible server); instead of `checkpoint`. */
  policy?: RemoteEvalPolicy;
  /** Called as completions are graded. */
  onProgress?: (done: number, total: number) => void;
  /** Names the config in error messages (default 'eval config'). */
  source?: string;
}

/** Validates an evaluation config (every invalid field listed) and runs it. */
export async function evaluateFromConfig(
  given: EvaluateConfigInput,
  options: EvaluateOptions = {},
): Promise<EvaluateCheckpointResult> {
  const config = parseConfig(evaluateConfigSchema, given, options.source ?? 'eval config');
  if (config.problemSet !== undefined && config.tasks !== undefined) {
    throw new UserError('eval: give either a problem set or tasks, not both');
  }
  const problems =
    config.problemSet === undefined
      ? undefined
      : {
          source: config.problemSet,
          problems: await readProblemSet(config.problemSet, { difficulty: 'optional' }),
        };
  return evaluateCheckpoint({
    checkpoint: config.checkpoint,
    policy: options.policy,
    tasks: config.tasks,
    problems,
    perProblem: config.perProblem,
    samples: config.samples,
    problemsPerDifficulty: config.problemsPerDifficulty,
    temperature: config.temperature ?? (config.samples === 1 ? 0 : 1),
    topP: config.topP,
    seed: config.seed,
    workers: config.workers,
    environment: config.environment === 'none' ? null : config.environment,
    onProgress: options.onProgress,
  });
}
