// `rubric-scaffold` — RuscaRL, rubric-scaffolded RL (arXiv 2508.16949; code IANNXANG/RuscaRL,
// verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py `_calculate_rubric_ratio` and
// `_generate_rubric_system_message`, RuscaRL_example/Qwen2.5-7B-Instruct/healthbench_RuscaRL.sh).
//
// Rollout j of a group of n sees the share r_j = g_j · s(t) of the problem's rubric (rubrics.ts):
// - intra-group g_j = (n−1−j)/(n−1) (`groupDecay: linear`), or 1 for the first `fullRevealCount` rollouts
//   and 0 after (`binary`); n = 1 gives r = 1 (the authors' early return);
// - over training, with x = (t−1)/(T−1) clamped to [0, 1] (T = train.steps; T ≤ 1: s = 1):
//   `step_sigmoid` s = 1/(1 + exp((x − x0)·k)), `step_linear` s = (T−t)/(T−1), `step_power` s = (1−x)^n,
//   `linear` s = 1 (intra-group decay only).
// round(r_j · #criteria) criteria (Python's round: halves to even) are written before the prompt, chosen
// at random (`selection: random`, the authors' random.sample; drawn from this scaffold's own stream,
// seeded from the run's seed and saved with its state) or the first ones in rubric order (`ordered`, as
// math_linear keeps order). None shown → the bare prompt. Every member is trained as an answer to the bare
// prompt (trainPrompt; the authors' graded_system_prompt_participate_training=False): update.ts recomputes
// the old log-probs under it (src/training/rl/restored-context.ts).
//
// Defaults: rule step_sigmoid with x0 = 0.2, k = 125 — the published HealthBench script
// (healthbench_RuscaRL.sh; the yaml defaults are x0 = 0.3, k = 10); groupDecay linear; power n = 1.
// Deviations:
// - Criteria come from our tasks' worked solutions (rubrics.ts), not human-written rubrics, and carry no
//   points; RuscaRL lists them in a system message with "(worth N points)", an instruction and a warning
//   not to mention them. Our models have no system turn: the criteria are lines before the prompt, after
//   an optional `header` (default none: the authors' 300-character preamble does not fit a 128-token model).
// - The reward stays the task verifier; the paper grades with an LLM judge against the rubric.
// - math_linear's special items (always show the format item, show the final-answer item only at r = 1)
//   are not reproduced: our rubrics have no answer item by construction; `ordered` keeps only its order.
// - `maxCriteria` (default none) caps the criteria shown, for small contexts.
// - Group sizes must be fixed (rollout.budget off): r_j depends on n.
// Metrics: guidance-ledger.ts (a group is guided when any member saw a criterion; guided/unguided pass
// rates are per member: members shown criteria vs bare members), plus guidance/rubric_decay (s(t) this
// step), guidance/criteria_shown (mean criteria per member this step), guidance/rubric_dropped
// (criteria of the pool the leakage guard dropped, at build time).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { defineGuidance } from './define.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema, type PlannedAttempt } from './guidance-ledger.ts';
import { problemRubric, requireRubrics } from './rubrics.ts';

const optionsSchema = z.strictObject({
  rule: z.enum(['step_sigmoid', 'step_linear', 'step_power', 'linear']).default('step_sigmoid'),
  /** step_sigmoid start point x0 (authors' script 0.2; yaml default 0.3). */
  startPoint: z.number().min(0).max(1).default(0.2),
  /** step_sigmoid steepness k (authors' script 125; yaml default 10). */
  steepness: z.number().positive().default(125),
  /** step_power exponent n. */
  power: z.number().positive().default(1),
  groupDecay: z.enum(['linear', 'binary']).default('linear'),
  /** binary: rollouts 0..fullRevealCount−1 see the whole (decayed) rubric. */
  fullRevealCount: z.number().int().nonnegative().default(1),
  selection: z.enum(['random', 'ordered']).default('random'),
  /** At most this many criteria shown (default: no cap). */
  maxCriteria: z.number().int().positive().optional(),
  /** Text before the criteria ('' = none). */
  header: z.string().default(''),
});

export type RubricScaffoldOptions = z.output<typeof optionsSchema>;

const stateSchema = z.strictObject({
  rng: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  ledger: ledgerStateSchema,
});

/** s(t): the decay over training (1 at the first step). */
export function stepDecay(options: RubricScaffoldOptions, step: number, totalSteps: number): number {
  if (options.rule === 'linear' || totalSteps <= 1) return 1;
  if (options.rule === 'step_linear') return Math.max(0, (totalSteps - step) / (totalSteps - 1));
  const x = Math.min(1, Math.max(0, (step - 1) / (totalSteps - 1)));
  if (options.rule === 'step_power') return Math.max(0, (1 - x) ** options.power);
  return Math.max(0, Math.min(1, 1 / (1 + Math.exp((x - options.startPoint) * options.steepness))));
}

/** g_j: the intra-group factor of rollout j of n. */
export function groupFactor(options: RubricScaffoldOptions, j: number, n: number): number {
  if (options.groupDecay === 'binary') return j < options.fullRevealCount ? 1 : 0;
  return Math.max(0, (n - 1 - j) / (n - 1));
}

/** r_j = g_j · s(t) (n = 1: 1, as the authors return early). */
export function revealRatio(
  options: RubricScaffoldOptions,
  j: number,
  n: number,
  step: number,
  totalSteps: number,
) {
  if (n === 1) return 1;
  return groupFactor(options, j, n) * stepDecay(options, step, totalSteps);
}

/** Python's round(): to the nearest integer, halves to even. */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (Math.abs(fraction - 0.5) > 1e-12) return Math.round(value);
  return floor % 2 === 0 ? floor : floor + 1;
}

export function createRubricScaffoldGuidance(rawOptions: unknown, context?: GuidanceContext): Guidance {
  const options = parseConfig(optionsSchema, rawOptions ?? {}, "guidance 'rubric-scaffold' options");
  if (!context)
    throw new ConfigError("guidance 'rubric-scaffold' needs the run's problem pool (its rubrics)");
  if (context.adaptiveGroupSize) {
    throw new ConfigError(
      "guidance 'rubric-scaffold' needs a fixed group size (its reveal ratio depends on the rollout's place in the group); turn rollout.budget off",
    );
  }
  requireRubrics(context.pool, context.source);
  const n = context.groupSize ?? 8;
  const rubricOf = new Map<string, string[]>();
  let dropped = 0;
  for (const problem of context.pool) {
    const rubric = problemRubric(problem);
    rubricOf.set(problem.id, rubric.criteria);
    dropped += rubric.dropped;
  }
  // The scaffold's own stream (criteria choice), seeded from the run's seed; saved with state().
  let rng = new Rng(((context.seed ?? 0) ^ 0x52c5ca41) >>> 0);
  const ledger = new GuidanceLedger();
  /** Per planned group of this step, in order: which members saw criteria. */
  let shownMembers = new Map<string, boolean[][]>();
  let decay = 1;
  let planStep: number | null = null;
  let shownSum = 0;
  let members = 0;
  let guidedSamples = 0;
  let guidedHits = 0;
  let bareSamples = 0;
  let bareHits = 0;

  const criteriaFor = (problem: Problem): string[] =>
    rubricOf.get(problem.id) ?? problemRubric(problem).criteria;

  const chosen = (criteria: readonly string[], count: number): string[] => {
    if (options.selection === 'ordered') return criteria.slice(0, count);
    const indices = rng.shuffle(criteria.map((_, index) => index)).slice(0, count);
    return indices.map((index) => criteria[index]);
  };

  const attemptFor = (problem: Problem, step: number): PlannedAttempt => {
    const criteria = criteriaFor(problem);
    const prompts: string[] = [];
    const shown: boolean[] = [];
    let fractionSum = 0;
    for (let j = 0; j < n; j++) {
      const ratio = revealRatio(options, j, n, step, context.totalSteps);
      const count = Math.min(roundHalfEven(ratio * criteria.length), options.maxCriteria ?? criteria.length);
      const picked = count > 0 ? chosen(criteria, count) : [];
      prompts.push(
        picked.length > 0 ? `${options.header}${picked.join('\n')}\n${problem.prompt}` : problem.prompt,
      );
      shown.push(picked.length > 0);
      fractionSum += criteria.length > 0 ? picked.length / criteria.length : 0;
      shownSum += picked.length;
      members++;
    }
    const queue = shownMembers.get(problem.id) ?? [];
    queue.push(shown);
    shownMembers.set(problem.id, queue);
    const guided = shown.some(Boolean);
    return {
      attempt: {
        problem,
        prompt: problem.prompt,
        prefix: '',
        guided,
        trainPrompt: problem.prompt,
        ...(guided && { memberPrompts: prompts }),
      },
      strength: guided ? fractionSum / n : 0,
    };
  };

  return {
    name: 'rubric-scaffold',
    plan(problems, step) {
      decay = stepDecay(options, step, context.totalSteps);
      if (planStep !== step) {
        planStep = step;
        shownSum = 0;
        members = 0;
      }
      return ledger.record(
        step,
        problems.map((problem) => attemptFor(problem, step)),
      );
    },
    observe(_step, outcomes: readonly GroupOutcome[]) {
      ledger.match(outcomes);
      guidedSamples = guidedHits = bareSamples = bareHits = 0;
      for (const outcome of outcomes) {
        const shown = shownMembers.get(outcome.problem.id)?.shift();
        outcome.rewards.forEach((reward, member) => {
          if (shown?.[member]) {
            guidedSamples++;
            if (reward > 0) guidedHits++;
          } else {
            bareSamples++;
            if (reward > 0) bareHits++;
          }
        });
      }
      shownMembers = new Map();
    },
    state: () => ({ rng: rng.state(), ledger: ledger.state() }),
    load(saved) {
      if (saved === null || saved === undefined) return;
      const state = parseConfig(stateSchema, saved, "guidance 'rubric-scaffold' saved state");
      rng = Rng.fromState(state.rng);
      ledger.load(state.ledger);
      shownMembers = new Map();
    },
    metrics: () => {
      const metrics: Record<string, number> = {
        ...ledger.metrics(),
        'guidance/rubric_decay': decay,
        'guidance/criteria_shown': members > 0 ? shownSum / members : 0,
        'guidance/rubric_dropped': dropped,
      };
      delete metrics['guidance/guided_pass_rate'];
      delete metrics['guidance/unguided_pass_rate'];
      if (guidedSamples > 0) metrics['guidance/guided_pass_rate'] = guidedHits / guidedSamples;
      if (bareSamples > 0) metrics['guidance/unguided_pass_rate'] = bareHits / bareSamples;
      return metrics;
    },
  };
}

export const rubricScaffoldGuidance = defineGuidance({
  id: 'rubric-scaffold',
  description: "rubric-scaffolded RL: each rollout of a group sees a decaying share of the problem's rubric",
  paper: {
    title: 'RuscaRL: rubric-scaffolded reinforcement learning',
    arxiv: '2508.16949',
    code: 'IANNXANG/RuscaRL',
  },
  optionsSchema: optionsSchema,
  create: createRubricScaffoldGuidance,
});
