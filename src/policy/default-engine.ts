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
  if (!nativeModelAvailable()) return { engine: 'tfjs', fallback: nativeModelStatus().reason ?? 'no addon' };
  if (!nativeDecodeAvailable()) {
    return {
      engine: 'tfjs',
      fallback: 'the addon was built before native/model-decode.c (npm run build:native)',
    };
  }
  return { engine: 'native' };
}
