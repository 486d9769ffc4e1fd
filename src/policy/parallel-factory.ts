// The embedded policy for a `policy.workers` setting (default auto, one per core): the in-process
// EmbeddedBackend for 1 worker (no threads: exactly the path that existed before workers), the
// worker-parallel backend for more.

import { EmbeddedBackend, type SerializableTokenizer } from './embedded-backend.ts';
import type { ModelConfig } from './model.ts';
import { ParallelEmbeddedBackend } from './parallel-backend.ts';
import {
  defaultWorkers,
  type EngineChoice,
  resolveWorkerCount,
  type WorkerCount,
} from './parallel-options.ts';

/** A fresh embedded policy: the in-process EmbeddedBackend for 1 worker, the parallel one for more. */
export async function createEmbeddedPolicy(
  config: ModelConfig,
  tokenizer: SerializableTokenizer,
  seed: number,
  workers: WorkerCount = defaultWorkers,
  engine: EngineChoice = {},
): Promise<EmbeddedBackend | ParallelEmbeddedBackend> {
  const count = resolveWorkerCount(workers);
  if (count === 1) return EmbeddedBackend.create(config, tokenizer, seed, { ...engine });
  return ParallelEmbeddedBackend.create(config, tokenizer, seed, { workers: count, ...engine });
}

/** Loads a checkpoint: the in-process EmbeddedBackend for 1 worker, the parallel one for more. */
export async function loadEmbeddedPolicy(
  dir: string,
  workers: WorkerCount = defaultWorkers,
  engine: EngineChoice = {},
): Promise<EmbeddedBackend | ParallelEmbeddedBackend> {
  const count = resolveWorkerCount(workers);
  if (count === 1) return EmbeddedBackend.load(dir, { ...engine });
  return ParallelEmbeddedBackend.load(dir, { workers: count, ...engine });
}
