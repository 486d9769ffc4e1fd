// Worker thread of `simulateParallel`: runs one (selector, seed) simulation per task.
import { serveWorker } from '../../core/worker-pool.ts';
import { runSimulationTask, type SimulationRunResult, type SimulationTask } from './simulate.ts';

serveWorker<SimulationTask, SimulationRunResult>(runSimulationTask);
