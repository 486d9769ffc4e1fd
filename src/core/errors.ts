// Error classes. A user's mistake (bad config, bad input file, unknown name) is a UserError: the CLI
// prints its message as one line and exits with code 2; `--debug` prints the stack as well.

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
