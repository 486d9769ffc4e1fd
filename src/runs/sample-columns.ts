// The samples table of run.sqlite and how a sample's details are stored in it.
//
//   samples(step, problem_id, prompt, completion, reward, reason,          -- since the first store
//           advantage, advantage_kind, logprobs, tokens, scaffold,       -- added by migration (below)
//           guidance, guided, expert, retry, episode)
//
// - advantage REAL: the advantage the loss used for this completion; for per-token advantages (on-policy
//   distillation, privileged-hint) the mean over the completion's trained tokens (a multi-turn member's tool outputs left out), with advantage_kind 'token-mean'
//   ('sequence' otherwise; always written with the details). NULL advantage with a kind: the completion
//   was not trained (dropped by a batch filter, or left out by the estimator); NULL kind: the row predates
//   the columns (or was logged without details), so the advantage is unknown.
// - logprobs BLOB: the sampler's log-prob of each completion token (SampledSequence.logprobs, the old
//   log-probs of the loss), little-endian Float32, 4 bytes a token. Expert tokens carry the policy's
//   forward log-probs, as the step gives them.
// - tokens TEXT: a JSON array of each completion token decoded alone (a character for char tokenizers;
//   a BPE piece, possibly a partial UTF-8 replacement character, for BPE ones; '' for special tokens).
//   Same length as logprobs. Both stop after MAX_TOKENS tokens.
// - scaffold TEXT: the run's guidance (scaffold) name; guidance TEXT: JSON {plainPrompt?, added: [{kind,
//   text}], expertTokens?}: the problem's own prompt when `prompt` holds more, and each text the scaffold
//   added (a hint in the prompt, a forced prefix, a member's own prompt such as a rubric share, a retry's
//   feedback prompt, scorer-only privileged context); guided / expert / retry INTEGER 0/1 flags.
// - episode TEXT: for a completion sampled as a multi-turn episode (rollout.environment), JSON
//   SampleEpisode: per turn the span of the policy's tokens and of the environment's (the tool output,
//   masked from the loss) as [start, end) indices into the completion's tokens, the turn's reward, stop
//   reason and error (message cut to MAX_ERROR_CHARS), then the end reason and error counts. NULL for a
//   single-turn completion. The spans index the whole completion; `tokens` / `logprobs` may stop earlier
//   (MAX_TOKENS). Environment-written tokens are stored in `tokens` like the others, with log-prob 0 in
//   `logprobs` (they were not sampled: no sampling log-prob exists; the episode spans say which they are).
//
// Migration: a writer adds the missing columns (ALTER TABLE samples ADD COLUMN, nullable), so a run made
// before them resumes and gains them; old rows keep NULL. Readers never migrate (the dashboard opens the
// store read-only): they select only the columns the table has (PRAGMA table_info) and leave the rest
// undefined.
//
// The database is typed by the few methods used here (SampleDatabase), not by better-sqlite3's types:
// this module's .d.ts ships in the package, and @types/better-sqlite3 is a devDependency, so naming its
// types here made a user's `tsc` with `skipLibCheck: false` fail (TS7016). run-store.ts passes its
// better-sqlite3 Database, which has these methods.

/** A prepared statement, as far as this module uses one (better-sqlite3's Statement has these). */
export interface SampleStatement {
  run(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
}

/** The methods of a better-sqlite3 Database this module calls; `prepare` returns the caller's statement type. */
export interface SampleDatabase<Statement extends SampleStatement = SampleStatement> {
  exec(source: string): unknown;
  pragma(source: string): unknown;
  prepare(source: string): Statement;
}

/** One text a scaffold added to what the policy saw. */
export interface GuidanceText {
  /** 'prompt' (added to the problem's prompt, e.g. a hint), 'prefix' (forced start of the completion),
   *  'member-prompt' (this completion's own prompt, e.g. a rubric share), 'retry-prompt' (the feedback
   *  prompt a retry was sampled from), 'privileged' (seen by the scorer only). */
  kind: string;
  text: string;
}

export interface SampleGuidance {
  /** The problem's own prompt, when the stored prompt holds more (a hint); absent when they are equal. */
  plainPrompt?: string;
  added: GuidanceText[];
  /** Leading completion tokens copied from an expert trace (absent = none). */
  expertTokens?: number;
}

export interface SampleRecord {
  problemId: string;
  /** The prompt the policy was given (with a scaffold's hint, if any). */
  prompt: string;
  completion: string;
  reward: number;
  reason?: string;
  /** The advantage the loss used (null: not trained). */
  advantage?: number | null;
  /** 'sequence' (one value per completion) or 'token-mean' (mean of per-token advantages). */
  advantageKind?: 'sequence' | 'token-mean';
  /** Sampler log-prob of each completion token. */
  logprobs?: readonly number[];
  /** Each completion token decoded alone; same length as logprobs. */
  tokens?: readonly string[];
  /** The run's guidance name. */
  scaffold?: string;
  guidance?: SampleGuidance;
  guided?: boolean;
  expert?: boolean;
  retry?: boolean;
  /** The completion's turns, when it was a multi-turn episode (absent: single-turn). */
  episode?: SampleEpisode;
}

/** One policy turn of a stored episode; spans are [start, end) indices into the completion's tokens. */
export interface SampleEpisodeTurn {
  /** The tokens the policy sampled this turn (its tool call, if any, ends it). */
  action: [number, number];
  /** The tokens the environment wrote after it (the tool output; masked from the loss). Empty when none. */
  output: [number, number];
  /** The output's length before the environment truncated it (equal to the span's when not cut). */
  outputTokensBefore: number;
  /** The turn's reward from the environment. */
  reward: number;
  /** How the policy's sampling stopped: 'eos', 'stop' (a tool call's closing tag) or 'length'. */
  stopReason: string;
  /** The step's error: kind 'parse' | 'tool' | 'environment' and its message (cut to MAX_ERROR_CHARS). */
  error?: { kind: string; message: string };
}

/** A completion sampled as a multi-turn episode: its turns, how it ended and its errors. */
export interface SampleEpisode {
  turns: SampleEpisodeTurn[];
  /** 'done' | 'max_turns' | 'max_tokens' | 'parse_error' | 'environment_error'. */
  end: string;
  /** With end 'environment_error': the reason (cut to MAX_ERROR_CHARS). */
  environmentError?: string;
  /** Error counts by kind over the episode (parse, tool, environment). */
  errors: Record<string, number>;
}

/** Error messages of a stored episode are cut to this many characters. */
export const MAX_ERROR_CHARS = 500;

/** Log-probs and token pieces are kept for at most this many tokens of a completion. */
export const MAX_TOKENS = 4096;

/** The columns added after the first store, with their SQL types (order = ALTER order). */
export const ADDED_COLUMNS: readonly [string, string][] = [
  ['advantage', 'REAL'],
  ['advantage_kind', 'TEXT'],
  ['logprobs', 'BLOB'],
  ['tokens', 'TEXT'],
  ['scaffold', 'TEXT'],
  ['guidance', 'TEXT'],
  ['guided', 'INTEGER'],
  ['expert', 'INTEGER'],
  ['retry', 'INTEGER'],
  ['episode', 'TEXT'],
];

const BASE_COLUMNS = ['step', 'problem_id', 'prompt', 'completion', 'reward', 'reason'];

/** Adds the missing columns of ADDED_COLUMNS to `samples` (writers only). */
export function migrateSamples(db: SampleDatabase): void {
  const present = sampleColumns(db);
  for (const [name, type] of ADDED_COLUMNS) {
    if (!present.has(name)) db.exec(`ALTER TABLE samples ADD COLUMN ${name} ${type}`);
  }
}

function sampleColumns(db: SampleDatabase): Set<string> {
  return new Set((db.pragma('table_info(samples)') as { name: string }[]).map((column) => column.name));
}

/** The INSERT for every column (after migrateSamples). */
export function prepareSampleInsert<Statement extends SampleStatement>(
  db: SampleDatabase<Statement>,
): Statement {
  const columns = [...BASE_COLUMNS, ...ADDED_COLUMNS.map(([name]) => name)];
  return db.prepare(
    `INSERT INTO samples (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
}

/** The values of one row, in prepareSampleInsert's column order. */
export function sampleRow(step: number, sample: SampleRecord): unknown[] {
  const flag = (value: boolean | undefined) => (value === undefined ? null : value ? 1 : 0);
  return [
    step,
    sample.problemId,
    sample.prompt,
    sample.completion,
    sample.reward,
    sample.reason ?? null,
    sample.advantage ?? null,
    sample.advantageKind ?? null,
    sample.logprobs ? encodeLogprobs(sample.logprobs) : null,
    sample.tokens ? JSON.stringify(sample.tokens.slice(0, MAX_TOKENS)) : null,
    sample.scaffold ?? null,
    sample.guidance ? JSON.stringify(sample.guidance) : null,
    flag(sample.guided),
    flag(sample.expert),
    flag(sample.retry),
    sample.episode ? JSON.stringify(sample.episode) : null,
  ];
}

/** Float32 little-endian, at most MAX_TOKENS values. */
export function encodeLogprobs(logprobs: readonly number[]): Buffer {
  const values = logprobs.slice(0, MAX_TOKENS);
  const buffer = Buffer.alloc(values.length * 4);
  for (const [index, value] of values.entries()) buffer.writeFloatLE(value, index * 4);
  return buffer;
}

export function decodeLogprobs(blob: Buffer): number[] {
  const out: number[] = [];
  for (let offset = 0; offset + 4 <= blob.length; offset += 4) out.push(blob.readFloatLE(offset));
  return out;
}

/**
 * The SELECT of one step's samples over the columns this table has (an old store lacks the added ones),
 * and the row → SampleRecord conversion.
 */
export function prepareSampleSelect(
  db: SampleDatabase,
): (step: number) => (SampleRecord & { step: number })[] {
  const present = sampleColumns(db);
  const added = ADDED_COLUMNS.map(([name]) => name).filter((name) => present.has(name));
  const statement = db.prepare(
    `SELECT ${[...BASE_COLUMNS, ...added].join(', ')} FROM samples WHERE step = ? ORDER BY rowid`,
  );
  return (step) => (statement.all(step) as Record<string, unknown>[]).map(toRecord);
}

function toRecord(row: Record<string, unknown>): SampleRecord & { step: number } {
  const record: SampleRecord & { step: number } = {
    step: row.step as number,
    problemId: row.problem_id as string,
    prompt: row.prompt as string,
    completion: row.completion as string,
    reward: row.reward as number,
    // NULL comes back as null, as it always did.
    reason: row.reason as string,
  };
  // advantage_kind is written with every detailed sample: with it, a NULL advantage means "not trained";
  // without it (a row from before the columns) the advantage is unknown and stays undefined.
  if (row.advantage_kind != null) {
    record.advantageKind = row.advantage_kind as 'sequence' | 'token-mean';
    record.advantage = row.advantage as number | null;
  } else if (row.advantage != null) {
    record.advantage = row.advantage as number;
  }
  if (row.logprobs != null) record.logprobs = decodeLogprobs(row.logprobs as Buffer);
  if (row.tokens != null) record.tokens = parseJson(row.tokens as string, []);
  if (row.scaffold != null) record.scaffold = row.scaffold as string;
  if (row.guidance != null) record.guidance = parseJson(row.guidance as string, { added: [] });
  if (row.episode != null) {
    const episode = parseJson<SampleEpisode | null>(row.episode as string, null);
    if (episode) record.episode = episode;
  }
  for (const flag of ['guided', 'expert', 'retry'] as const) {
    if (row[flag] != null) record[flag] = row[flag] === 1;
  }
  return record;
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
