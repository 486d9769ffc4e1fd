// Worker-thread entry for the math-answer verifier: runs verifySync (extraction, normalisation, parsing,
// comparison — all synchronous compute-engine/BigInt work) so that the pool can time it out and terminate
// it. Started by MathVerifier through src/core/worker-pool.ts.
import { serveWorker } from '../../core/worker-pool.ts';
import { type VerifyTask, verifyTask, type WorkerVerdict } from './verify.ts';

serveWorker<VerifyTask, WorkerVerdict>(verifyTask);
