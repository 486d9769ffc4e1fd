// Worker-thread entry for the math-answer verifier: runs verifyTask (extraction, normalisation, parsing,
// comparison — all synchronous compute-engine/BigInt work) so that the pool can time it out and terminate
// it. Started by MathVerifier through src/core/worker-pool.ts. Math-Verify v0.8.0 times out with
// signal.alarm (not thread-safe) and verl wraps it in a process pool with per-item timeouts; Qwen's
// math_equal uses a subprocess with a 1 s timeout. We use threads: cheaper to start, same isolation of hangs.
import { serveWorker } from '../../core/worker-pool.ts';
import { type VerifyTask, verifySync, verifyTask, type WorkerVerdict } from './verify.ts';

// Warm up before announcing readiness: compute-engine's first parse builds its dictionaries (hundreds of
// ms), which must not count against the first task's timeout.
verifySync('\\frac{1}{2}', '\\boxed{0.5}');
verifySync('x^2-1', '\\boxed{(x-1)(x+1)}');

serveWorker<VerifyTask, WorkerVerdict>(verifyTask);
