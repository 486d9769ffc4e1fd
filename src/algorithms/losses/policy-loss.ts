// The policy-loss contract. A loss is computed on the client from a forward pass and handed to the backend
// as per-token weights w_{i,t} = ∂L/∂logp_{i,t} (src/core/policy.ts, loss 'linear', which minimises
// Σ w·logp with w held constant): the backend's gradient of Σ w·logp equals the gradient of L.
// Each loss here defines one per-token term ℓ(logp) and its derivative; aggregation (./aggregation.ts)
// is linear, so weights = aggregation coefficient × derivative. Metrics are token means over the masked
// tokens whatever the aggregation, with fixed names (STYLE.md): losses/policy, losses/clipfrac, …
// Every loss also takes `rolloutCorrection` (src/algorithms/mismatch.ts, off by default): a constant
// per-token weight from the trainer/sampler log-prob ratio π_old/π_sampler (truncated or masked, per token
// or per sequence, as TRL's vLLM importance-sampling correction) multiplies each token's term, value and
// derivative alike. Tokens marked offPolicy (expert traces) were not drawn by the sampler and keep weight 1.
import { z } from 'zod';
import { type PaperRef, pluginInfo } from '../../core/plugin.ts';
import { type RolloutCorrection, rolloutCorrectionSchema, rolloutCorrectionWeights } from '../mismatch.ts';
import { parseOptions } from '../options.ts';
import { type AggregationMode, aggregationCoefficients, aggregationModes } from './aggregation.ts';

/** One sequence given to a loss: log-probs, advantages and mask, per completion token. */
export interface LossSequence {
  /** log π_θ of each completion token from the current forward pass. [T] */
  logprobs: readonly number[];
  /** log π_old: the sampling (behaviour) policy's log-probs; absent = equal to logprobs (on-policy). [T] */
  oldLogprobs?: readonly number[];
  /**
   * The sampler's own log-probs of the same tokens, when the engine that sampled is not the one that
   * trains (oldLogprobs then being the trainer's, recomputed); needed only by `rolloutCorrection`. [T]
   */
  samplerLogprobs?: readonly number[];
  /** Per-token advantages [T], or one sequence advantage broadcast to every token. */
  advantages: readonly number[] | number;
  /** 1 for tokens that carry loss (completion), 0 for prompt and padding. [T] */
  mask: readonly number[];
  /** true for tokens that came from another policy (an expert trace); used by 'policy-shaping'. [T] */
  offPolicy?: readonly boolean[];
  /** The sequence's scalar reward (update.ts passes it; losses defined on rewards read it: NFT). */
  reward?: number;
  /** The rewards of every member of the sequence's group, whichever minibatch they fall in (NFT's r̂). */
  groupRewards?: readonly number[];
  /** Index of the sequence's group (prompt) in the step's batch; losses on pairs read it (online DPO). */
  group?: number;
  /** The reference policy's log-probs of the tokens, when the run loads one (online DPO needs it). [T] */
  refLogprobs?: readonly number[];
}

/** A loss's value, per-token weights and metrics. */
export interface PolicyLossResult {
  /** [sequence][token] ∂loss/∂logp, zero where the mask is zero. */
  weights: number[][];
  loss: number;
  metrics: Record<string, number>;
}

/** The policy-loss contract: sequences → scalar loss, per-token weights ∂L/∂logp and metrics (pure function). */
export interface PolicyLoss<Options = any> {
  /** The plug-in fields (src/core/plugin.ts): kind 'loss', the config name, description, paper. */
  readonly kind?: 'loss';
  readonly id?: string;
  /** The config name (the same as `id` for losses built by defineLoss). */
  readonly name: string;
  readonly description: string;
  readonly paper?: PaperRef;
  readonly optionsSchema: z.ZodType<Options>;
  /** Resolves user options (undefined = all defaults) into the full options object; ConfigError on bad keys. */
  resolveOptions(raw?: unknown): Options;
  /** Options are resolved through the schema first; undefined = all defaults. */
  compute(sequences: readonly LossSequence[], options?: unknown): PolicyLossResult;
  /** The per-token term (losses built by definePolicyLoss): lets ./expert-tokens.ts reuse it. */
  readonly tokenLoss?: TokenLoss<Options>;
  readonly requireOldLogprobs?: boolean;
  /** The loss reads refLogprobs: setup loads the reference policy for it (online DPO). */
  readonly requireReference?: boolean;
  /** The loss pairs members of a group: every group must be in one compute() call (minibatches 1). */
  readonly requireWholeGroups?: boolean;
  /**
   * Name of the term given to tokens marked offPolicy (an expert trace) when this loss was built by
   * ./expert-tokens.ts; absent = the loss was not built for expert tokens (update.ts refuses them).
   */
  readonly expertTerm?: string;
}

/** Fields shared by every loss's options: the aggregation, and the sampler/trainer rollout correction. */
export const aggregationOptionsShape = {
  /** How per-token losses are combined; see ./aggregation.ts. */
  aggregation: z.enum(aggregationModes).default('token-mean'),
  /** The constant N of seq-mean-token-sum-norm (set it to the generation budget); default: longest sequence. */
  tokenSumNormaliser: z.number().positive().optional(),
  /** Truncated or masked importance weights π_old/π_sampler; see ../mismatch.ts. Off by default. */
  rolloutCorrection: rolloutCorrectionSchema,
};
/**
 * Options every loss takes: its aggregation and the sampler/trainer rollout correction. The optional
 * fields admit `undefined` as well, as the output of `aggregationOptionsShape`'s schema does, so that
 * `z.strictObject(aggregationOptionsShape)` is an options schema of this type under
 * `exactOptionalPropertyTypes` too.
 */
export interface AggregationOptions {
  aggregation: AggregationMode;
  tokenSumNormaliser?: number | undefined;
  /** Absent = off (options built by hand rather than through a schema). */
  rolloutCorrection?: RolloutCorrection | undefined;
}

/** What a per-token loss term sees of one token. */
export interface TokenInput {
  logprob: number;
  oldLogprob: number;
  advantage: number;
  offPolicy: boolean;
  /** Index of the token's sequence in the batch (set by computeTokenLoss; sequence-level losses read it). */
  sequence?: number;
  /** Index of the token in its sequence (set by computeTokenLoss; batch-level selections read it). */
  position?: number;
}

/** Which clipping bound, if any, set this token's term (for the clipfrac metrics). */
export type ClipSide = 'high' | 'low' | 'dual' | undefined;

/** A per-token loss term's value, derivative and clip side. */
export interface TokenTerm {
  /** ℓ: this token's contribution before aggregation. */
  value: number;
  /** ∂ℓ/∂logp (with any stop-gradient the method prescribes). */
  derivative: number;
  clipped?: ClipSide;
}

/** A per-token loss term and its derivative (what definePolicyLoss turns into a PolicyLoss). */
export type TokenLoss<Options> = (token: TokenInput, options: Options) => TokenTerm;

/** Applies a per-token loss to every masked token and aggregates it. */
export function computeTokenLoss<Options extends AggregationOptions>(
  sequences: readonly LossSequence[],
  options: Options,
  tokenLoss: TokenLoss<Options>,
  requireOldLogprobs: boolean,
): PolicyLossResult {
  for (let index = 0; index < sequences.length; index++)
    checkShapes(sequences[index], index, requireOldLogprobs);
  const coefficients = aggregationCoefficients(
    sequences.map((sequence) => sequence.mask),
    options.aggregation,
    options.tokenSumNormaliser,
  );
  let loss = 0;
  let tokens = 0;
  const counts = { high: 0, low: 0, dual: 0 };
  let approxKl = 0;
  let ppoKl = 0;
  let ratioSum = 0;
  const correction = options.rolloutCorrection;
  const corrections = sequences.map((sequence, i) => correctionWeights(sequence, i, correction));
  const weights = sequences.map((sequence, i) =>
    sequence.logprobs.map((logprob, t) => {
      if (sequence.mask[t] === 0) return 0;
      const oldLogprob = sequence.oldLogprobs?.[t] ?? logprob;
      const advantage =
        typeof sequence.advantages === 'number' ? sequence.advantages : sequence.advantages[t];
      const uncorrected = tokenLoss(
        {
          logprob,
          oldLogprob,
          advantage,
          offPolicy: sequence.offPolicy?.[t] ?? false,
          sequence: i,
          position: t,
        },
        options,
      );
      // A masked token (w = 0) carries nothing, not even a clip count; w = 1 leaves the term as it is.
      const w = corrections[i]?.[t] ?? 1;
      const term: TokenTerm =
        w === 0
          ? { value: 0, derivative: 0 }
          : { ...uncorrected, value: w * uncorrected.value, derivative: w * uncorrected.derivative };
      loss += coefficients[i][t] * term.value;
      tokens += 1;
      if (term.clipped !== undefined) counts[term.clipped] += 1;
      const logRatio = logprob - oldLogprob;
      ppoKl += -logRatio;
      approxKl += Math.expm1(logRatio) - logRatio;
      ratioSum += Math.exp(logRatio);
      return coefficients[i][t] * term.derivative;
    }),
  );
  const perToken = (value: number) => (tokens > 0 ? value / tokens : 0);
  return {
    weights,
    loss,
    metrics: {
      'losses/policy': loss,
      'losses/clipfrac': perToken(counts.high + counts.low),
      'losses/clipfrac_high': perToken(counts.high),
      'losses/clipfrac_low': perToken(counts.low),
      'losses/clipfrac_dual': perToken(counts.dual),
      // k3 = (r − 1) − log r of π_θ against π_old (Schulman's low-variance estimator, as cleanrl reports).
      'losses/approx_kl': perToken(approxKl),
      // k1 = mean(log π_old − log π_θ), verl's ppo_kl.
      'losses/ppo_kl': perToken(ppoKl),
      'losses/ratio_mean': perToken(ratioSum),
      'losses/tokens': tokens,
      ...correctionMetrics(sequences, corrections),
    },
  };
}

/** Tokens the rollout correction applies to: loss-carrying tokens that the sampler drew. */
function sampledMask(sequence: LossSequence): number[] {
  return sequence.mask.map((m, t) => (m !== 0 && !sequence.offPolicy?.[t] ? 1 : 0));
}

/** The rollout-correction weight of each token (null when the correction is off). */
function correctionWeights(
  sequence: LossSequence,
  index: number,
  correction: RolloutCorrection | undefined,
): number[] | null {
  if (!correction || correction.mode === 'off') return null;
  if (!sequence.samplerLogprobs || !sequence.oldLogprobs) {
    throw new RangeError(
      `sequence ${index}: rolloutCorrection '${correction.mode}' needs samplerLogprobs and oldLogprobs (the trainer's)`,
    );
  }
  const mask = sampledMask(sequence);
  const weights = rolloutCorrectionWeights(
    { trainerLogprobs: sequence.oldLogprobs, samplerLogprobs: sequence.samplerLogprobs, mask },
    correction,
    index,
  );
  // Tokens the sampler did not draw (expert tokens) keep their term unchanged.
  return weights.map((weight, t) => (mask[t] === 1 ? weight : 1));
}

/** mismatch/is_weight_mean and mismatch/masked_frac over the corrected tokens; {} when the correction is off. */
function correctionMetrics(
  sequences: readonly LossSequence[],
  corrections: readonly (number[] | null)[],
): Record<string, number> {
  if (corrections.every((weights) => weights === null)) return {};
  let count = 0;
  let sum = 0;
  let masked = 0;
  sequences.forEach((sequence, i) => {
    sampledMask(sequence).forEach((m, t) => {
      if (m === 0) return;
      const weight = corrections[i]![t];
      count++;
      sum += weight;
      if (weight === 0) masked++;
    });
  });
  return {
    'mismatch/is_weight_mean': count > 0 ? sum / count : 0,
    'mismatch/masked_frac': count > 0 ? masked / count : 0,
  };
}

function checkShapes(sequence: LossSequence, index: number, requireOldLogprobs: boolean): void {
  const length = sequence.logprobs.length;
  const check = (name: string, values: readonly unknown[] | undefined) => {
    if (values !== undefined && values.length !== length) {
      throw new RangeError(`sequence ${index}: ${name} has ${values.length} entries, logprobs has ${length}`);
    }
  };
  check('mask', sequence.mask);
  check('oldLogprobs', sequence.oldLogprobs);
  check('offPolicy', sequence.offPolicy);
  check('samplerLogprobs', sequence.samplerLogprobs);
  if (typeof sequence.advantages !== 'number') check('advantages', sequence.advantages);
  if (requireOldLogprobs && sequence.oldLogprobs === undefined) {
    throw new RangeError(`sequence ${index}: this loss needs oldLogprobs (the sampling policy's log-probs)`);
  }
}

/**
 * The per-token term of a loss whose term depends on the whole batch (a sequence-level ratio, a
 * covariance selection over every token), built once per compute() call, with any batch-level metrics.
 */
export interface BatchTerm<Options> {
  tokenLoss: TokenLoss<Options>;
  metrics?: Record<string, number>;
}

interface LossDefinitionFields<Options> {
  id?: string;
  /** @deprecated use `id`. */
  name?: string;
  description: string;
  /** A PaperRef, or a one-line citation (the older shape). */
  paper?: PaperRef | string;
  optionsSchema: z.ZodType<Options>;
  requireOldLogprobs: boolean;
}

/**
 * `defineLoss`'s argument: the plug-in fields and either the per-token term (`tokenLoss`, which
 * ./expert-tokens.ts can mix with an expert term) or a term built from the batch (`batchTerm`: GSPO, GMPO,
 * Clip-Cov; such a loss is not offered for expert tokens, since its batch statistics would mix them in).
 */
export type LossDefinition<Options extends AggregationOptions> = LossDefinitionFields<Options> &
  (
    | { tokenLoss: TokenLoss<Options>; batchTerm?: undefined }
    | {
        batchTerm: (sequences: readonly LossSequence[], options: Options) => BatchTerm<Options>;
        tokenLoss?: undefined;
      }
  );

/**
 * Builds a PolicyLoss from a per-token term and an options schema (aggregation and rollout correction
 * included): the loss kind of the plug-in shape (src/core/plugin.ts).
 */
export function defineLoss<Options extends AggregationOptions>(
  definition: LossDefinition<Options>,
): PolicyLoss<Options> {
  const info = pluginInfo('loss', { ...definition, id: definition.id ?? definition.name ?? '' });
  const resolveOptions = (raw?: unknown): Options =>
    parseOptions(definition.optionsSchema, raw, `loss '${info.id}'`) as Options;
  const { requireOldLogprobs } = definition;
  const compute = (sequences: readonly LossSequence[], raw?: unknown): PolicyLossResult => {
    const options = resolveOptions(raw);
    if (definition.tokenLoss) {
      return computeTokenLoss(sequences, options, definition.tokenLoss, requireOldLogprobs);
    }
    for (let index = 0; index < sequences.length; index++)
      checkShapes(sequences[index], index, requireOldLogprobs);
    const term = definition.batchTerm(sequences, options);
    const result = computeTokenLoss(sequences, options, term.tokenLoss, requireOldLogprobs);
    return { ...result, metrics: { ...result.metrics, ...term.metrics } };
  };
  return {
    kind: 'loss',
    id: info.id,
    name: info.id,
    description: info.description,
    ...(info.paper === undefined ? {} : { paper: info.paper }),
    optionsSchema: definition.optionsSchema,
    ...(definition.tokenLoss && { tokenLoss: definition.tokenLoss }),
    requireOldLogprobs,
    resolveOptions,
    compute,
  };
}

/** Element-wise sum of two weight arrays of the same shape (e.g. policy loss + KL penalty). */
export function addWeights(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): number[][] {
  if (a.length !== b.length) throw new RangeError(`addWeights: ${a.length} sequences vs ${b.length}`);
  return a.map((row, i) => {
    if (row.length !== b[i].length) throw new RangeError(`addWeights: sequence ${i} lengths differ`);
    return row.map((value, t) => value + b[i][t]);
  });
}

/** The older name of defineLoss (which also takes `name` for `id`). @deprecated use defineLoss. */
export const definePolicyLoss = defineLoss;
