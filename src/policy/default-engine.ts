// The engine a new embedded run trains and samples on when its config names none (issue 29): native/model.c
// (the whole forward and backward in one call, native-model.ts) and native/model-decode.c (KV-cached
// sampling, native-decoder.ts) where the addon has both, else the portable tfjs graph. The choice is
// stored in the new run's config (parallel-options.ts pinWorkerCount), so a resume continues on the engine
// the run started with; a stored config without `engine` (runs made before native became the default)
// resumes on tfjs, as it was made. Both engines produce the same checkpoints and agree on log-probs and
// gradients to float32 rounding (native-engine.test.ts), not bit for bit: a run's results depend on it.

import { UserError } from '../core/errors.ts';
import { shortInput } from '../core/quote-input.ts';
import { nativeDecodeAvailable } from './native-decoder.ts';
import { nativeModelAvailable, nativeModelStatus } from './native-model.ts';
import type { TrainEngine } from './parallel-options.ts';

export interface DefaultEngine {
  engine: TrainEngine;
  /** Why the native engine is not used (absent when it is). */
  fallback?: string;
}

/**
 * Why policy.engine 'native' cannot run here, or null when it can: the addon needs native/model.c (the
 * forward and backward) and native/model-decode.c (sampling). EmbeddedBackend refuses the engine with it.
 */
export function nativeEngineProblem(): string | null {
  if (!nativeModelAvailable()) return nativeModelStatus().reason;
  if (!nativeDecodeAvailable()) {
    return 'the addon was built before native/model-decode.c; rebuild it with `npm run build:native`';
  }
  return null;
}

/**
 * native when the addon has the model and the decoder; else tfjs, with the reason. The environment
 * variable CURRICULA_ENGINE (tfjs or native) picks the default instead: native where the addon cannot run
 * still falls back to tfjs, with the reason.
 */
export function defaultEngine(env: NodeJS.ProcessEnv = process.env): DefaultEngine {
  const asked = env.CURRICULA_ENGINE;
  if (asked !== undefined && asked !== '' && asked !== 'tfjs' && asked !== 'native') {
    throw new UserError(`CURRICULA_ENGINE must be tfjs or native, got '${shortInput(asked)}'`);
  }
  if (asked === 'tfjs') return { engine: 'tfjs', fallback: 'CURRICULA_ENGINE=tfjs' };
  const problem = nativeEngineProblem();
  return problem === null ? { engine: 'native' } : { engine: 'tfjs', fallback: problem };
}
