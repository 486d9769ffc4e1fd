// The policy-backend contract (ARCHITECTURE.md, "the central seam"), modelled on Tinker's primitives.
// Implemented in-process by the embedded transformer (src/policy) and over HTTP by remote backends.
//
// Conventions:
// - A sequence is a list of token ids. `forward` scores each token given the ones before it, so the
//   log-prob list of a sequence of length L has L-1 entries: logprobs[t] = log p(tokens[t+1] | tokens[..t]).
// - A Datum is one training sequence plus per-position weights over those L-1 predicted tokens.
// - forwardBackward with loss 'linear' minimises  L = Σ_datums Σ_t weights[t] · logp_t  (weights are
//   dL/dlogp_t, held constant). So a custom loss computed on the client (PPO, KL, off-policy shaping)
//   becomes per-token weights (Tinker's two-pass custom loss).
// - With loss 'cross_entropy' the weights are non-negative token weights (Tinker's semantics) and the
//   minimised loss is  L = -Σ weights[t] · logp_t; it equals 'linear' with the weights negated.

/** One training example: a token sequence and the weight of each next-token log-prob. */
export interface Datum {
  /** Full token sequence (prompt + completion), length L ≥ 2. */
  tokens: number[];
  /** Length L-1: weight of the log-prob of tokens[t+1]. Zero on prompt positions. */
  weights: number[];
  /**
   * Length L-1, optional: weight e_t of the entropy H_t of position t's next-token distribution; the
   * minimised loss adds Σ e_t·H_t (an entropy bonus has e < 0), whatever the loss kind. Only a backend
   * with `entropy: true` (the embedded one: it has the full distribution) accepts it.
   */
  entropyWeights?: number[];
}

/** The losses a backend computes itself: linear (Σ w·logp, for client-side losses) and cross_entropy. */
export type LossKind = 'linear' | 'cross_entropy';

/** What forwardBackward returns: the loss and per-token log-probs. */
export interface ForwardBackwardResult {
  /** Value of the minimised loss: Σ w·logp for 'linear', -Σ w·logp for 'cross_entropy'. */
  loss: number;
  /** Per-datum per-position log-probs computed in this pass (length L-1 each). */
  logprobs: number[][];
  /** Number of tokens with non-zero weight. */
  tokens: number;
  /** Per-datum per-position entropies H_t (length L-1 each), when some datum had entropyWeights. */
  entropies?: number[][];
}

/** Sampling settings: n, temperature, topP, maxTokens, stop strings, seed. */
export interface SampleOptions {
  /** Completions per prompt. */
  n: number;
  temperature: number;
  /** Nucleus sampling mass in (0, 1]. */
  topP: number;
  maxTokens: number;
  /** Generation stops when the decoded completion ends with one of these (the stop string is kept). */
  stop?: string[];
  seed: number;
  /**
   * Also return, for every completion token, the `topLogprobs` most likely tokens at temperature 1 with
   * their log-probs (0–20; absent or 0: none). Backends that cannot give them leave the field out.
   */
  topLogprobs?: number;
}

/** One of the most likely tokens at a position: its id and log p at temperature 1. */
export interface TopLogprob {
  token: number;
  logprob: number;
}

/** Why sampling stopped: end of sequence, a stop string, or the token limit. */
export type StopReason = 'eos' | 'stop' | 'length';

/** One sampled completion: tokens, text, per-token log-probs and why it stopped. */
export interface SampledSequence {
  /** Completion tokens only (the EOS token, if generated, is included). */
  tokens: number[];
  /** Decoded completion text (without EOS). */
  text: string;
  /** log p(token) under the policy at temperature 1 (what the learner sees). */
  logprobs: number[];
  /** log q(token) under the actual sampling distribution (temperature + top-p). */
  samplingLogprobs: number[];
  stopReason: StopReason;
  /** Per completion token, when SampleOptions.topLogprobs asked: the most likely tokens, most likely first. */
  topLogprobs?: TopLogprob[][];
}

/** Settings of one optimizer (AdamW) step. */
export interface OptimOptions {
  learningRate: number;
  betas?: [number, number];
  eps?: number;
  /** Decoupled (AdamW) weight decay; 0 = plain Adam. */
  weightDecay?: number;
  /** Clip the global gradient norm to this value; 0 or undefined = no clipping. */
  gradClip?: number;
}

/** What an optimizer step reports (e.g. the gradient norm). */
export interface OptimStepResult {
  /** Global gradient norm before clipping. */
  gradNorm: number;
  step: number;
}

/** A tokenizer: text ↔ token ids, with the special tokens the loop needs. */
export interface Tokenizer {
  readonly vocabSize: number;
  /** BOS id; -1 when the model has none (Qwen): then nothing is prepended to prompts. */
  readonly bos: number;
  readonly eos: number;
  readonly pad: number;
  /**
   * Ids that end generation when the model has several (Qwen3: <|im_end|>, <|endoftext|>); eos first.
   * Absent means [eos].
   */
  readonly stopTokenIds?: readonly number[];
  /** Encodes text; throws TokenizerError naming the character and position when it is out of vocabulary. */
  encode(text: string, where?: string): number[];
  /** Decodes ids, dropping special tokens. */
  decode(ids: readonly number[]): string;
  /**
   * The prompt ids a chat model expects for a user turn holding `text` (its own chat template, with the
   * generation prompt). Absent: prompts are [BOS] + encode(text), as the embedded model was trained.
   */
  renderPrompt?(text: string, where?: string): number[];
}

/** The policy-backend contract (Tinker's primitives): sample, forward, forwardBackward, optimStep, save and load. */
export interface PolicyBackend {
  readonly tokenizer: Tokenizer;
  /** Maximum sequence length (prompt + completion) the model accepts. */
  readonly contextLength: number;
  /** For each prompt, `n` completions: result[promptIndex][sampleIndex]. */
  sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]>;
  /** Teacher-forced per-token log-probs, length L-1 per sequence. */
  forward(sequences: number[][]): Promise<number[][]>;
  /** Accumulates gradients of the loss over the data (call optimStep to apply them). */
  forwardBackward(data: Datum[], loss: LossKind): Promise<ForwardBackwardResult>;
  /** Applies the accumulated gradients with one AdamW step. */
  optimStep(options: OptimOptions): Promise<OptimStepResult>;
  /** Writes weights, config, tokenizer and optimizer state to `dir`. */
  save(dir: string): Promise<void>;
  /** Releases what the backend holds outside the heap (worker threads, connections); optional. */
  close?(): Promise<void>;
  /** true when forwardBackward takes Datum.entropyWeights (it has the full next-token distribution). */
  readonly entropy?: boolean;
}
