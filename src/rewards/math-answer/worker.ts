// Worker-thread entry for the math-answer verifier: runs verifyTask (extraction, normalisation, parsing,
// comparison — all synchronous compute-engine/BigInt work) so that the pool can time it out and terminate
// it. Started by MathVerifier through src/core/worker-pool.ts.
import { serveWorker } from '../../core/worker-pool.ts';
import { type VerifyTask, verifySync, verifyTask, type WorkerVerdict } from './verify.ts';

// Warm up before announcing readiness: compute-engine's first parse builds its dictionaries (hundreds of
// ms), which must not count against the first task's timeout.
verifySync('\\frac{1}{2}', '\\boxed{0.5}');
verifySync('x^2-1', '\\boxed{(x-1)(x+1)}');

serveWorker<VerifyTask, WorkerVerdict>(verifyTask);
