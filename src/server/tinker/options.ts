// The Tinker server's tunables (long-poll hold, seq_id wait, samplers kept, durability) and their defaults.
// A file of its own: the protocol context (../protocol-context.ts) names them without importing the routes.
export interface TinkerOptions {
  /** How long retrieve_future holds a pending future before answering try_again (ms). */
  longPollMs: number;
  /** How long a request waits for a missing earlier seq_id before failing (ms). */
  seqWaitMs: number;
  /** Sampling sessions kept in memory (least recently used dropped first). */
  maxSamplers: number;
  /** Save each model's state at create_model / optim_step / load_weights and restore it at start. */
  durable: boolean;
  /** A restored model: how long a request waits for a lost predecessor before the gap is accepted (ms). */
  restoreGraceMs: number;
  /** Where restore and durability problems are reported (one line each). */
  log: (line: string) => void;
}

export const defaultTinkerOptions: TinkerOptions = {
  longPollMs: 30_000,
  seqWaitMs: 120_000,
  maxSamplers: 16,
  durable: true,
  restoreGraceMs: 2_000,
  log: (line) => console.error(line),
};
