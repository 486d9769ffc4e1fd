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

/**
 * One problem of an invalid config, as zod reports it: the key path inside what was validated
 * (`['train', 'steps']`, `['tasks', 0, 'difficulties']`; `[]` for the whole value or when the place is not
 * known), zod's issue code (`invalid_type`, `too_small`, `unrecognized_keys`, …; `custom` for a check of
 * Curricula's own) and the message without the path.
 */
export interface ConfigIssue {
  path: (string | number)[];
  code: string;
  message: string;
}

/** Options of a ConfigError: the structured issues (default: one `custom` issue holding the message). */
export interface ConfigErrorOptions extends ErrorOptions {
  issues?: readonly ConfigIssue[];
}

/**
 * Invalid configuration (YAML/JSON or CLI options). `message` is the one line the CLI prints; `issues`
 * lists the same problems one by one (from the zod schema where a schema rejected the value).
 */
export class ConfigError extends UserError {
  override name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];
  constructor(message: string, options?: ConfigErrorOptions) {
    super(message, options);
    this.issues = options?.issues ?? [{ path: [], code: 'custom', message }];
  }
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
 * Work stopped by an AbortSignal. Its name is 'AbortError', as DOM and Node abort errors. Thrown as is
 * when the signal was already aborted when `train` or `pretrain` was called (nothing was created; the
 * signal's reason is the `cause`); a run stopped once it had started is its subclass RunCancelledError.
 */
export class CancelledError extends CurriculaError {
  override name = 'AbortError';
}

/**
 * A run stopped by its AbortSignal (src/api/train.ts): it stopped after the step in progress, saved a
 * checkpoint and stays resumable from `runDir`. Its name is 'AbortError', as DOM and Node abort errors.
 */
export class RunCancelledError extends CancelledError {
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
