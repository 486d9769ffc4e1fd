// `evaluate` and `simulate` for scripts: the same configs as `curricula eval` and `curricula simulate`
// (one schema and one library function each, src/eval/evaluate-config.ts and
// src/curricula/simulate/simulate-config.ts, which the CLI commands call too).
import type { SimulationResult } from '../curricula/simulate/simulate.ts';
import { type SimulateRunOptions, simulateFromConfig } from '../curricula/simulate/simulate-config.ts';
import type { EvaluateCheckpointResult } from '../eval/evaluate-checkpoint.ts';
import { type EvaluateOptions, evaluateFromConfig } from '../eval/evaluate-config.ts';
import type { EvaluateConfig, SimulateConfig } from './config.ts';

export type { SelectorResult, SimulationResult } from '../curricula/simulate/simulate.ts';
export type { SimulateRunOptions } from '../curricula/simulate/simulate-config.ts';
export type { EvaluateCheckpointResult, RemoteEvalPolicy } from '../eval/evaluate-checkpoint.ts';
export type { EvaluateOptions } from '../eval/evaluate-config.ts';

/**
 * Evaluates a checkpoint (or a remote policy, `options.policy`) on the held-out problems of a task mix
 * (the run's own by default) or on a JSONL problem set: pass@1, unbiased pass@k and maj@k per task and
 * difficulty. `config` is validated first (every invalid field listed in one ConfigError).
 */
export function evaluate(
  config: EvaluateConfig,
  options: EvaluateOptions = {},
): Promise<EvaluateCheckpointResult> {
  return evaluateFromConfig(config, options);
}

/**
 * Compares task selectors against a simulated learner (no model; seconds): held-out learning curves,
 * area under the curve, steps to a target accuracy, 95% intervals over seeds.
 */
export function simulate(
  config: SimulateConfig,
  options: SimulateRunOptions = {},
): Promise<SimulationResult> {
  return simulateFromConfig(config, options);
}
