// Error classes. A user's mistake (bad config, bad input file, unknown name) is a UserError: the CLI
// prints its message as one line and exits with code 2; `--debug` prints the stack as well.

/** Base class of every error Curricula throws on purpose. */
export class CurriculaError extends Error {
  override name = 'CurriculaError';
}

/** A mistake the user can fix: the message says what, where, and what to do. */
export class UserError extends CurriculaError {
  override name = 'UserError';
}

/** Invalid configuration (YAML/JSON or CLI options). */
export class ConfigError extends UserError {
  override name = 'ConfigError';
}

/** Unknown name looked up in a registry. */
export class UnknownNameError extends UserError {
  override name = 'UnknownNameError';
}

/** A data file (problem set, cases) that cannot be read or parsed. */
export class DataError extends UserError {
  override name = 'DataError';
}

/** A checkpoint that is missing, incomplete or corrupt. */
export class CheckpointError extends UserError {
  override name = 'CheckpointError';
}

/** Text that the tokenizer cannot encode. */
export class TokenizerError extends UserError {
  override name = 'TokenizerError';
}

/**
 * A run stopped by its AbortSignal (src/api/train.ts): it stopped after the step in progress, saved a
 * checkpoint and stays resumable from `runDir`. Its name is 'AbortError', as DOM and Node abort errors.
 */
export class RunCancelledError extends CurriculaError {
  override name = 'AbortError';
  constructor(
    readonly runDir: string,
    readonly step: number,
  ) {
    super(`run ${runDir} cancelled after step ${step}; it is resumable (resume: '${runDir}')`);
  }
}

/** A plug-in (task, reward, selector, scaffold, advantage, loss) that breaks its contract (src/api/testing.ts). */
export class ConformanceError extends CurriculaError {
  override name = 'ConformanceError';
  constructor(
    /** What was checked, e.g. "reward 'my-reward'". */
    readonly subject: string,
    /** The broken property, e.g. 'score() result 2: reward is NaN'. */
    readonly property: string,
  ) {
    super(`${subject}: ${property}`);
  }
}
