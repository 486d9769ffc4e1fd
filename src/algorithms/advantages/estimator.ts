// The advantage-estimator contract. Every estimator turns groups of scalar rewards (one group = the samples
// drawn for one prompt) into one advantage per sample, plus a flag per sample that says whether the sample
// belongs in the training batch at all. A sample that is not included is left out of the batch, so it
// does not count in a loss normaliser (RAFT and Reinforce-Rej with `rejected: 'drop'`; by default they
// keep rejected samples in the batch with advantage 0, as the authors' code does).
// Every entry has the same call signature, so the trainer never branches on a name.
import type { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { type PaperRef, pluginInfo } from '../../core/plugin.ts';
import { parseOptions } from '../options.ts';

/** The rewards (and optionally completion lengths) of the samples drawn for one prompt. */
export interface RewardGroup {
  /** Scalar reward of each sample of one prompt, in sample order. */
  rewards: readonly number[];
  /**
   * Completion length in tokens of each sample (the tokens that carry loss), for estimators whose
   * statistics are over tokens rather than samples (REINFORCE++ whitens over every response token of the
   * batch). Absent = 1 per sample, which makes token statistics per-sample ones. The trainer passes them.
   */
  lengths?: readonly number[];
}

/** Per-sample advantages and inclusion flags of a batch of groups. */
export interface AdvantageEstimate {
  /** [group][sample] advantage; 0 where the sample is not included. */
  advantages: number[][];
  /** [group][sample] false = leave the sample out of the batch (and out of the loss normaliser). */
  included: boolean[][];
}

/** The advantage-estimator contract: groups of scalar rewards → one advantage per sample (pure function). */
export interface AdvantageEstimator<Options = any> {
  /** The plug-in fields (src/core/plugin.ts): kind 'advantage', the config name, description, paper. */
  readonly kind: 'advantage';
  readonly id: string;
  /** @deprecated the same as `id` (the older define shape). */
  readonly name: string;
  /** One line: what it computes. */
  readonly description: string;
  /** The paper: title, arXiv id, the authors' code. */
  readonly paper?: PaperRef;
  /** Smallest number of samples per prompt the estimator is defined for. */
  readonly minGroupSize: number;
  readonly optionsSchema: z.ZodType<Options>;
  /** Resolves user options (undefined = all defaults) into the full options object; ConfigError on bad keys. */
  resolveOptions(raw?: unknown): Options;
  /** Throws ConfigError when the configured group size (samples per prompt) cannot work; call at config time. */
  validate(groupSize: number): void;
  /** Options are resolved through the schema first, so partial or raw config objects are accepted. */
  estimate(groups: readonly RewardGroup[], options?: unknown): AdvantageEstimate;
}

/** `defineAdvantage`'s argument: the plug-in fields and the pure compute function. */
export interface AdvantageDefinition<Options> {
  id?: string;
  /** @deprecated use `id`. */
  name?: string;
  description: string;
  /** A PaperRef, or a one-line citation (the older shape). */
  paper?: PaperRef | string;
  minGroupSize: number;
  optionsSchema: z.ZodType<Options>;
  compute: (groups: readonly RewardGroup[], options: Options) => AdvantageEstimate;
}

/**
 * Builds an AdvantageEstimator from a compute function and an options schema (validation and group-size
 * checks included): the advantage kind of the plug-in shape (src/core/plugin.ts).
 */
export function defineAdvantage<Options>(
  definition: AdvantageDefinition<Options>,
): AdvantageEstimator<Options> {
  const { minGroupSize, optionsSchema, compute } = definition;
  const info = pluginInfo('advantage', { ...definition, id: definition.id ?? definition.name ?? '' });
  const name = info.id;
  const validate = (groupSize: number): void => {
    if (!Number.isInteger(groupSize) || groupSize < minGroupSize) {
      throw new ConfigError(
        `advantage estimator '${name}' needs at least ${minGroupSize} samples per prompt, got ${groupSize}: ` +
          `with one sample the group baseline equals the reward and every advantage is 0; ` +
          `raise the number of samples per prompt or use 'reinforce-pp' or 'raft'`,
      );
    }
  };
  const resolveOptions = (raw?: unknown): Options =>
    parseOptions(optionsSchema, raw, `advantage estimator '${name}'`) as Options;
  return {
    kind: 'advantage',
    id: name,
    name,
    description: info.description,
    ...(info.paper === undefined ? {} : { paper: info.paper }),
    minGroupSize,
    optionsSchema,
    resolveOptions,
    validate,
    estimate(groups, options) {
      for (const [index, group] of groups.entries()) {
        validate(group.rewards.length);
        if (group.lengths !== undefined && group.lengths.length !== group.rewards.length) {
          throw new RangeError(
            `group ${index}: ${group.lengths.length} lengths for ${group.rewards.length} rewards`,
          );
        }
      }
      return compute(groups, resolveOptions(options));
    },
  };
}

/** The older name of defineAdvantage (which also takes `name` for `id`). @deprecated use defineAdvantage. */
export const defineAdvantageEstimator = defineAdvantage;

/** Every sample included. */
export function includeAll(groups: readonly RewardGroup[]): boolean[][] {
  return groups.map((group) => group.rewards.map(() => true));
}

/**
 * What a rejecting estimator (RAFT, Reinforce-Rej) does with the samples it rejects:
 * 'zero-advantage' keeps them in the batch with advantage 0, so they count in the loss normaliser (the
 * authors' code, Minimal-RL on verl); 'drop' leaves them out of the batch and out of the normaliser.
 */
export const rejectedSampleModes = ['zero-advantage', 'drop'] as const;
export type RejectedSampleMode = (typeof rejectedSampleModes)[number];
