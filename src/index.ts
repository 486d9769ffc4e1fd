// `curricula`: the library entry point. Train, pretrain, evaluate and simulate from a script with the
// same config objects as the YAML files (schemas and input types exported, so a config type-checks);
// register a task, reward, selector, scaffold, advantage estimator or loss of your own into the same
// registries the built-ins use; read a run's store; the shipped checkpoints. Contracts and helpers of
// each extension point live in the subpaths: curricula/rewards, /tasks, /curricula, /guidance, /environments,
// /algorithms, /backends, /runs, /testing. Guide: docs/library.md.
export { checkpoints } from './api/checkpoints.ts';
export {
  type DistillConfig,
  distillConfigSchema,
  type EvaluateConfig,
  evaluateConfigSchema,
  type PretrainConfig,
  pretrainConfigSchema,
  type ResolvedPretrainConfig,
  type ResolvedTrainConfig,
  type SimulateConfig,
  simulateConfigSchema,
  type TeachConfig,
  type TrainConfig,
  teachConfigSchema,
  trainConfigSchema,
  validateConfig,
} from './api/config.ts';
export {
  type EvaluateCheckpointResult,
  type EvaluateOptions,
  evaluate,
  type RemoteEvalPolicy,
  type SelectorResult,
  type SimulateRunOptions,
  type SimulationResult,
  simulate,
} from './api/evaluate.ts';
export {
  type AnyPlugin,
  type RegisterOptions,
  registerAdvantage,
  registerGuidance,
  registerLoss,
  registerPlugin,
  registerReward,
  registerSelector,
  registerTask,
} from './api/register.ts';
export {
  type MetricQuery,
  type MetricRow,
  openRun,
  type RunCheckpoint,
  type RunEvent,
  type RunReader,
  type RunSample,
  type SampleQuery,
} from './api/runs.ts';
export {
  type EvalSummary,
  type PretrainResult,
  pretrain,
  type RunOptions,
  type StepEvent,
  type TrainResult,
  type TrainRunOptions,
  train,
  trainSteps,
} from './api/train.ts';
export {
  CancelledError,
  CheckpointError,
  ConfigError,
  type ConfigErrorOptions,
  type ConfigIssue,
  ConformanceError,
  CurriculaError,
  DataError,
  RunCancelledError,
  TokenizerError,
  UnknownNameError,
  UserError,
} from './core/errors.ts';
