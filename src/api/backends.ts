// `curricula/backends`: the PolicyBackend contract (Tinker's primitives: sample, forward,
// forwardBackward, optimStep, save/load) and constructors of the backends that implement it: the
// embedded model (a checkpoint loaded in process or in worker threads), an OpenAI-compatible sampling
// server, and a Tinker-compatible training service.
import type { PolicyBackend } from '../core/policy.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import type { WorkerCount } from '../policy/parallel-options.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';

export {
  connectRemotePolicy,
  type RemotePolicyOptions,
  readTokenizer,
} from '../backends/openai/policy-spec.ts';
export { TinkerPolicyBackend } from '../backends/tinker/client/index.ts';
export type {
  Datum,
  ForwardBackwardResult,
  LossKind,
  OptimOptions,
  OptimStepResult,
  PolicyBackend,
  SampledSequence,
  SampleOptions,
  StopReason,
  Tokenizer,
} from '../core/policy.ts';
export type { WorkerCount } from '../policy/parallel-options.ts';

/**
 * Loads an embedded checkpoint (a run directory — its best checkpoint —, a checkpoint or a model
 * directory, e.g. `checkpoints.demoCold`) as a PolicyBackend: in
 * this thread for `workers: 1`, else in worker threads (default 'auto' = one per core). Close it when done.
 */
export function loadCheckpoint(dir: string, options: { workers?: WorkerCount } = {}): Promise<PolicyBackend> {
  return loadEmbeddedPolicy(resolveCheckpoint(dir).modelPath, options.workers);
}
