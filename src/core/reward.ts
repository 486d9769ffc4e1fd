// The reward contract: every reward scores a batch of (problem, completion) pairs asynchronously and says
// why. Implementations live in src/rewards/ and are registered by name there.
import type { SampledSequence, SampleOptions, Tokenizer } from './policy.ts';
import type { Problem } from './problem.ts';

/** One completion to grade, with its problem (and its group, for group-aware rewards). */
export interface RewardInput {
  problem: Problem;
  completion: string;
  /** All completions sampled for the same problem in this step (including this one), for group-aware rewards. */
  group?: readonly string[];
  /** Training step, for rewards whose weights follow a schedule. */
  step?: number;
}

/** A reward's verdict on one completion. */
export interface RewardResult {
  /** Scalar reward used by the trainer. */
  reward: number;
  /** Named parts (e.g. { correct: 1, format: 0.5 }); logged as reward/<name>. */
  components: Record<string, number>;
  /** Why the reward is what it is when it is not full marks (e.g. 'no answer found', 'timeout'). */
  reason?: string;
  /**
   * Grading this item failed and `reward` is the 0 put in its place, `reason` says what went wrong. Set by
   * the RL loop (the reward threw, or returned a missing or non-finite value) or by a reward that knows
   * its grading failed (a judge's failed call or malformed verdict, with `failure`). Counted per step
   * (reward/errors) and stored by reason (run.sqlite reward_errors).
   */
  error?: true;
  /**
   * A grading failure's kind and what it does to training (with `error`): `zero` keeps the 0 in its
   * group; `exclude` leaves the item out of its group's baseline and of the batch; `drop-group` leaves
   * its whole group out. Judges set it from their `onFailure` option; reward/judge_failures counts them.
   */
  failure?: { kind: 'judge'; policy: 'zero' | 'exclude' | 'drop-group' };
}

/**
 * What a self-reward may ask of the policy being trained (RLSC, SCS, CaT): sample continuations and score
 * sequences. A subset of PolicyBackend; `forward` is optional because some remote samplers lack it.
 */
export interface RewardPolicy {
  readonly tokenizer: Tokenizer;
  readonly contextLength: number;
  sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]>;
  forward?(sequences: number[][]): Promise<number[][]>;
  /**
   * Optional: sample with one seed per prompt (prompt p draws from Rng(promptSeeds[p]), as the embedded
   * backends do, src/policy/prompt-seeds.ts), so a reward can batch rows whose draws must not depend on
   * the batch.
   */
  sampleWithPromptSeeds?(
    prompts: number[][],
    options: SampleOptions,
    promptSeeds: readonly number[],
  ): Promise<SampledSequence[][]>;
}

/** What the caller gives a reward factory besides its options (all optional). */
export interface RewardContext {
  /** The policy being trained; only the RL loop passes it (src/training/rl/setup.ts). */
  policy?: RewardPolicy;
}

/** The reward contract: score a batch of completions asynchronously, one result per input, in order. */
export interface Reward {
  readonly name: string;
  /**
   * The reward calls the policy (self-rewards): the RL loop skips its reference-solution check
   * (setup.ts checkRewardFits), which runs before the policy is loaded.
   */
  readonly usesPolicy?: boolean;
  /**
   * The reward asks a judge model (src/rewards/judges) or a learned reward model (src/rewards/reward-model):
   * the RL loop skips its reference-solution check (a judge call per task before training; a weak judge's
   * verdict or a reward model's negative logit on a reference is no config error).
   */
  readonly usesJudge?: boolean;
  /** One result per input, in input order. */
  score(inputs: readonly RewardInput[]): Promise<RewardResult[]>;
  /**
   * Where the reward keeps what belongs to the run (a judge's verdict cache): the run's directory, given
   * once it exists (a new run's directory is made after the reward is built) and again on resume.
   */
  useRunDirectory?(dir: string): void;
  /** Releases worker pools or sandboxes. */
  close?(): Promise<void>;
}
