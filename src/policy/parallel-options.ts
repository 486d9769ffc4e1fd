// `policy.workers` (config) and `--workers` (command line): how many replicas of the embedded policy run
// in worker threads (parallel-backend.ts). Kept apart from the backend so that parsing a config does not
// load tfjs. The default is `auto`, one worker per core (os.availableParallelism(), issue 10): on a
// one-core machine that is 1, the in-process backend; `workers: 1` pins the in-process path anywhere.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ConfigError, UserError } from '../core/errors.ts';
import { shortInput } from '../core/quote-input.ts';

/**
 * The most worker threads: each holds a replica of the model and its runtime (tens of MB), so 10,000
 * would grow memory by gigabytes before the first sample. 64 is 4 × a 16-core machine; a fixed number,
 * not one per machine, so that a stored config resumes anywhere.
 */
export const MAX_WORKERS = 64;

const workersBound = `at most ${MAX_WORKERS} (each worker holds a replica of the model)`;

/** A positive worker count up to MAX_WORKERS, or 'auto' (os.availableParallelism()). */
export const workerCountSchema = z.union([
  z.literal('auto'),
  z.number().int().positive().max(MAX_WORKERS, `must be ${workersBound}`),
]);

/** Replicas of the embedded policy in worker threads: a number, or 'auto' (one per core). */
export type WorkerCount = z.output<typeof workerCountSchema>;

/** policy.workers when a config has no `policy` block and a command no --workers: one per core. */
export const defaultWorkers: WorkerCount = 'auto';

/** What computes forward and backward in training, and sampling (policy.engine; EmbeddedBackendOptions.engine). */
export const trainEngineSchema = z.enum(['tfjs', 'native']);

export type TrainEngine = z.output<typeof trainEngineSchema>;

/** The most threads policy.threads may give the native engine (native/model.c's MaxThreads). */
export const MAX_ENGINE_THREADS = 16;

/** policy.threads: threads of the native engine's forward and backward per replica, or 'auto'. */
export const engineThreadsSchema = z.union([
  z.literal('auto'),
  z.number().int().positive().max(MAX_ENGINE_THREADS, `must be at most ${MAX_ENGINE_THREADS}`),
]);

export type EngineThreads = z.output<typeof engineThreadsSchema>;

/** What trains: the engine and, for 'native', how many threads each replica's pass uses. */
export interface EngineChoice {
  engine?: TrainEngine;
  /** native/model.c threads per replica (default 1). */
  engineThreads?: number;
}

/** The `policy` block of the train and pretrain configs. */
export const policyBlockSchema = z.strictObject({
  /** Replicas of the embedded policy in worker threads; 1 = in process (no threads); auto = one per core. */
  workers: workerCountSchema.default(defaultWorkers),
  /**
   * What computes forward and backward in training: absent or 'tfjs' = the tfjs graph (with the native
   * kernels where built); 'native' = native/model.c, the whole pass in one call (needs the addon).
   */
  engine: trainEngineSchema.optional(),
  /**
   * With engine 'native': threads that share each replica's forward and backward and each sampling call (its rows split between
   * them, gradients summed in a fixed order); 'auto' (the default) = the cores per worker, at least 1.
   * Stored resolved in the run, like workers: the result depends on the count.
   */
  threads: engineThreadsSchema.optional(),
});

export type PolicyBlock = z.output<typeof policyBlockSchema>;

/** policy.threads for `workers` replicas: 'auto' (or absent) = the cores per replica, at least 1. */
export function resolveEngineThreads(threads: EngineThreads = 'auto', workers: number): number {
  if (threads !== 'auto') return threads;
  return Math.max(1, Math.min(MAX_ENGINE_THREADS, Math.floor(availableParallelism() / Math.max(1, workers))));
}

/** The engine settings of a `policy` block, with threads 'auto' (or absent) resolved for its workers. */
export function engineChoice(policy: PolicyBlock | undefined): EngineChoice {
  const workers = resolveWorkerCount(policy?.workers);
  return {
    engine: policy?.engine,
    engineThreads: policy?.engine === 'native' ? resolveEngineThreads(policy?.threads, workers) : undefined,
  };
}

/** Resolves 'auto' (and a missing setting, defaultWorkers) to one worker per core (at most MAX_WORKERS). */
export function resolveWorkerCount(workers: WorkerCount = defaultWorkers): number {
  return workers === 'auto' ? Math.min(MAX_WORKERS, availableParallelism()) : workers;
}

/**
 * A new run's config with `policy.workers` resolved to a number (`auto` and a missing block become
 * one per core), `policy.engine` set (`defaultEngine` when the config names none; absent when that is
 * absent too) and, on the native engine, `policy.threads` resolved, as it is stored in the run: sampling depends on the worker count, so a resume on a
 * machine with another number of cores must continue with the count the run started with to stay
 * bit-identical (it warns when that count exceeds the cores there).
 */
export function pinWorkerCount<Config extends { policy?: PolicyBlock }>(
  config: Config,
  defaultEngine?: TrainEngine,
): Config {
  const workers = resolveWorkerCount(config.policy?.workers);
  const policy: PolicyBlock = { ...config.policy, workers };
  // `engine` absent: the default of a new run (default-engine.ts), stored so that a resume keeps it
  const engine = config.policy?.engine ?? defaultEngine;
  if (engine !== undefined) policy.engine = engine;
  if (config.policy?.threads !== undefined && engine !== 'native') {
    throw new ConfigError(
      `policy.threads is the native engine's thread count; it needs policy.engine 'native' (got '${engine ?? 'tfjs'}')`,
    );
  }
  if (engine === 'native') policy.threads = resolveEngineThreads(config.policy?.threads, workers);
  return { ...config, policy };
}

/** Commander parser for `--workers <n|auto>`: a bad value is a UserError naming the option (exit 2). */
export function parseWorkersOption(value: string): WorkerCount {
  if (value === 'auto') return 'auto';
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UserError(`--workers must be a positive integer or 'auto', got '${shortInput(value)}'`);
  }
  if (number > MAX_WORKERS) throw new UserError(`--workers must be ${workersBound}, got ${value}`);
  return number;
}

/**
 * `--workers <list>` of `bench policy`: comma-separated positive counts or 'auto' (resolved here),
 * duplicates dropped, in the order given; a bad entry is a UserError naming the option (exit 2).
 */
export function parseWorkersList(list: string): number[] {
  const parts = list.split(',').map((part) => part.trim());
  const counts = parts.map((part) => {
    if (part === 'auto') return Math.min(MAX_WORKERS, availableParallelism());
    const number = Number(part);
    if (part === '' || !Number.isInteger(number) || number < 1) {
      throw new UserError(
        `--workers must be a comma-separated list of positive integers or 'auto', got '${shortInput(list)}'`,
      );
    }
    if (number > MAX_WORKERS) throw new UserError(`--workers must be ${workersBound} each, got ${number}`);
    return number;
  });
  return [...new Set(counts)];
}
