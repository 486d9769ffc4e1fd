// The `composite` reward: combines registered rewards ("parts") into one scalar.
//
//   reward = Σ_gates w_g(step)·r_g  +  [all gates open] · Σ_others w_p(step)·r_p  +  length penalty
//
// - parts: `{ name, options?, weight?, schedule?, gate?, label? }`, each resolved through the reward
//   registry (so composites nest). `label` (default: the name) prefixes the part's components and must be
//   unique.
// - weighted sum: `weight` (default 1), or `schedule`: piecewise-linear weights over the training step
//   (`input.step`, 0 when absent), for progressive reward shaping (schedule.ts).
// - gates: a part with `gate: t` must reach reward ≥ t before the other parts count (e.g. a format gate
//   before correctness, as R1-style recipes do). A gate part always contributes its own weighted reward;
//   when any gate is closed the non-gate parts are not scored at all (no expensive verification of
//   malformed output) and `closedReward`, when given, replaces the sum.
// - lengthPenalty: DAPO's soft overlong punishment (overlong.ts, arXiv 2503.14476), added last and always,
//   characters by default, tokens when a counter is passed in code (`deps.countTokens`).
// components: `<label>/<component>` for each part's components, `<label>/reward` (raw), `<label>/weight`,
// `gate` (1 open / 0 closed, when there are gates) and `length_penalty` (when configured); the trainer logs
// them under reward/<name>.
// Not from one paper: composition is plumbing; the DAPO formula is the only numeric rule taken from a source.
import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import { ConfigError } from '../../core/errors.ts';
import type { Reward, RewardInput, RewardResult } from '../../core/reward.ts';
import { defineReward, type RewardFactoryContext, type RewardLookup } from '../registry.ts';
import { overlongOptionsSchema, overlongPenalty, resolveOverlong, type TokenCounter } from './overlong.ts';
import { checkSchedule, type SchedulePoint, scheduleWeight } from './schedule.ts';

const partSchema = z.strictObject({
  /** Registered reward name. */
  name: z.string().min(1),
  /** Prefix of this part's components (default: the name); must be unique. */
  label: z.string().min(1).optional(),
  /** That reward's options. */
  options: z.unknown().optional(),
  /** Constant weight (ignored when `schedule` is given). */
  weight: z.number().default(1),
  /** Piecewise-linear weight over training steps: [{ step, weight }, …] with increasing steps. */
  schedule: z.array(z.strictObject({ step: z.number().min(0), weight: z.number() })).optional(),
  /** Gate threshold: the other parts count only when this part's reward ≥ gate. */
  gate: z.number().optional(),
});

const optionsSchema = z.strictObject({
  parts: z.array(partSchema).min(1),
  /** Reward when a gate is closed (default: the weighted sum of the gate parts). */
  closedReward: z.number().optional(),
  /** DAPO overlong penalty: { maxLength: 20480, cache: 4096, factor: 1, unit: 'chars' }. */
  lengthPenalty: overlongOptionsSchema.partial().optional(),
});

export type CompositeOptions = z.input<typeof optionsSchema>;

interface Part {
  label: string;
  reward: Reward;
  gate: number | undefined;
  weightAt(step: number): number;
}

/** `policy` (RewardContext) is passed on to every part, so self-rewards can be composed. */
export interface CompositeDeps extends RewardFactoryContext {
  /** Token counter for `lengthPenalty.unit: 'tokens'`. */
  countTokens?: TokenCounter;
}

/** The registry the parts are looked up in (a RewardRegistry passes itself). */
export function requireLookup(lookup: RewardLookup | undefined, source: string): RewardLookup {
  if (lookup === undefined) {
    throw new ConfigError(
      `${source}: no reward registry to look the parts up in; call it through a registry (rewards.get('composite')) or pass { rewards }`,
    );
  }
  return lookup;
}

export function createCompositeReward(options: unknown, deps: CompositeDeps = {}): Reward {
  const source = "reward 'composite' options";
  const parsed = parseConfig(optionsSchema, options ?? {}, source);
  const labels = new Set<string>();
  const specs = parsed.parts.map((spec, i) => {
    const label = spec.label ?? spec.name;
    if (label.includes('/'))
      throw new ConfigError(`${source}: parts.${i}: label '${label}' must not contain '/'`);
    if (labels.has(label)) {
      throw new ConfigError(`${source}: parts.${i}: two parts are labelled '${label}'; give one a 'label'`);
    }
    labels.add(label);
    const schedule = spec.schedule as SchedulePoint[] | undefined;
    if (schedule !== undefined) checkSchedule(schedule, `${source}: parts.${i}.schedule`);
    return { spec, label, schedule };
  });
  const penalty =
    parsed.lengthPenalty === undefined
      ? null
      : resolveOverlong(parsed.lengthPenalty, `${source}: lengthPenalty`, deps.countTokens);
  const lookup: RewardLookup = requireLookup(deps.rewards, source);
  // Built only once every option is valid, so a bad option leaves no worker pool behind.
  const parts: Part[] = specs.map(({ spec, label, schedule }) => ({
    label,
    reward: lookup.get(spec.name)(spec.options ?? {}, { policy: deps.policy, rewards: lookup }),
    gate: spec.gate,
    weightAt: (step) => (schedule === undefined ? spec.weight : scheduleWeight(schedule, step)),
  }));
  const gates = parts.filter((part) => part.gate !== undefined);
  const others = parts.filter((part) => part.gate === undefined);

  async function scoreParts(list: readonly Part[], inputs: readonly RewardInput[]) {
    return Promise.all(list.map((part) => (inputs.length > 0 ? part.reward.score(inputs) : [])));
  }

  return {
    name: 'composite',
    usesPolicy: parts.some((part) => part.reward.usesPolicy === true),
    async score(inputs) {
      const gateResults = await scoreParts(gates, inputs);
      const open = inputs.map((_, i) =>
        gates.every((part, g) => gateResults[g][i].reward >= (part.gate as number)),
      );
      const openIndices = inputs.map((_, i) => i).filter((i) => open[i]);
      const otherResults = await scoreParts(
        others,
        openIndices.map((i) => inputs[i]),
      );
      const position = new Map(openIndices.map((index, j) => [index, j]));

      return inputs.map((input, i): RewardResult => {
        const step = input.step ?? 0;
        const components: Record<string, number> = {};
        const reasons: string[] = [];
        let total = 0;
        const add = (part: Part, result: RewardResult) => {
          const weight = part.weightAt(step);
          total += weight * result.reward;
          components[`${part.label}/reward`] = result.reward;
          components[`${part.label}/weight`] = weight;
          for (const [key, value] of Object.entries(result.components))
            components[`${part.label}/${key}`] = value;
          if (result.reason !== undefined) reasons.push(`${part.label}: ${result.reason}`);
        };
        for (const [g, part] of gates.entries()) add(part, gateResults[g][i]);
        const j = position.get(i);
        if (j === undefined) {
          const closed = gates.find((part, g) => gateResults[g][i].reward < (part.gate as number)) as Part;
          reasons.unshift(`gate '${closed.label}' closed`);
          if (parsed.closedReward !== undefined) total = parsed.closedReward;
        } else {
          for (const [p, part] of others.entries()) add(part, otherResults[p][j]);
        }
        if (gates.length > 0) components.gate = j === undefined ? 0 : 1;
        if (penalty !== null) {
          const length = penalty.measure(input.completion);
          const value = overlongPenalty(length, penalty.options);
          components.length_penalty = value;
          total += value;
          if (value < 0)
            reasons.push(
              `overlong: ${length} ${penalty.options.unit} > ${penalty.options.maxLength - penalty.options.cache}`,
            );
        }
        const result: RewardResult = { reward: total, components };
        if (reasons.length > 0) result.reason = reasons.join('; ');
        return result;
      });
    },
    async close() {
      await Promise.all(parts.map((part) => part.reward.close?.()));
    },
  };
}

export const compositeReward = defineReward({
  id: 'composite',
  description: "combines registered rewards: weighted or scheduled parts, gates, and DAPO's length penalty",
  optionsSchema: optionsSchema,
  create: createCompositeReward,
});
