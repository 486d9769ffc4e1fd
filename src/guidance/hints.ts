// `hints` — QuestA partial-solution hints (Li et al., "QuestA: Expanding Reasoning Capacity in LLMs via
// Question Augmentation", arXiv 2507.13266; code: github.com/foreverlasting1202/QuestA,
// AReaL/datasets/add_prefix.py and the partial_50 / partial_50_25 GRPO configs).
//
// For a problem estimated hard, the prompt becomes problem + "\n\n## Hint." + the first fraction p of
// its worked solution (as add_prefix.py builds it); if that prefix is shorter than 10 characters the hint
// is omitted, as the authors do. The hint is part of the prompt, so no loss falls on it (rollout.ts puts
// it in the context; update.ts weighs only sampled tokens). p follows a schedule over training steps.
//
// Deviations from the paper / code, and defaults:
// - Schedule: the authors run two separate stages (p = 50%, then p = 25% from the stage-1 model, each its
//   own run); here one run walks `schedule` (default [0.5, 0.25, 0]): equal shares of train.steps per
//   stage unless `stageEnds` gives the last step of each stage but the final one. The final 0 is ours: the
//   run ends on bare prompts, which is what evaluation measures.
// - "Hard": the authors pick 26K hard prompts offline (their rule — a base-model pass-rate threshold — is
//   unverified). Here a problem is hard while the run's own estimate of its pass rate is below `threshold`
//   (default 0.25: under 2 of 8 samples correct, where a GRPO group gives at most one positive sample).
//   The estimate is an EMA (rate `emaRate`, default 0.5; the first group sets it) of the share of
//   rewards > 0 in the problem's UNGUIDED groups only — a hinted success says nothing about the bare
//   problem. A problem never seen is NOT hard: its first visit is unguided and measures it (hinting an
//   unmeasured problem would hide its difficulty). So that the estimate of a hinted problem can move, every
//   `probeEvery`-th visit of a hard problem (default 4; 0 = never) is unguided.
// - The hint marker "\n\n## Hint." is the authors' (`marker` option). Items whose final answer is not in
//   the solution are dropped by the authors; our task solutions always end with the answer line.
// - Leakage guard (leakage.ts, ours): a hint containing the answer is cut back before it; if what is left
//   is shorter than `minHintChars` (10) the hint is omitted (counted as guidance/leak_dropped).
// - Split in characters (QuestA's split_prefix is not in the release we read; unverified).
// Metrics: guidance-ledger.ts (the shared ones), plus guidance/hint_p (this step's scheduled p) and
// guidance/hard (problems currently estimated hard).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { defineGuidance } from './define.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema, type PlannedAttempt } from './guidance-ledger.ts';
import { guardAgainstAnswer, leakContext } from './leakage.ts';
import { requireWorkedSolutions, solutionPrefix } from './worked-solution.ts';

const optionsSchema = z.strictObject({
  /** Hint fraction p of each stage, in order. */
  schedule: z.array(z.number().min(0).max(1)).min(1).default([0.5, 0.25, 0]),
  /** Last step of each stage but the final one (increasing); default: equal shares of train.steps. */
  stageEnds: z.array(z.number().int().positive()).optional(),
  /** Hard = estimated pass rate below this. */
  threshold: z.number().gt(0).max(1).default(0.25),
  /** EMA rate of the pass-rate estimate (1 = last group only). */
  emaRate: z.number().gt(0).max(1).default(0.5),
  /** Every probeEvery-th visit of a hard problem is unguided (0 = never). */
  probeEvery: z.number().int().nonnegative().default(4),
  /** A hint shorter than this many characters is omitted (QuestA: 10). */
  minHintChars: z.number().int().nonnegative().default(10),
  /** Put between the problem and the hint (QuestA: "\n\n## Hint."). */
  marker: z.string().default('\n\n## Hint.'),
});

export type HintsOptions = z.output<typeof optionsSchema>;

const stateSchema = z.strictObject({
  estimates: z.record(z.string(), z.number()),
  hardVisits: z.record(z.string(), z.number().int()),
  ledger: ledgerStateSchema,
});

/** The scheduled p at `step` (steps count from 1). */
export function hintFraction(options: HintsOptions, totalSteps: number, step: number): number {
  const { schedule } = options;
  const ends =
    options.stageEnds ??
    schedule.slice(0, -1).map((_, index) => Math.round(((index + 1) * totalSteps) / schedule.length));
  const stage = ends.findIndex((end) => step <= end);
  return schedule[stage < 0 ? schedule.length - 1 : stage];
}

export function createHintsGuidance(rawOptions: unknown, context?: GuidanceContext): Guidance {
  const options = parseConfig(optionsSchema, rawOptions ?? {}, "guidance 'hints' options");
  if (options.stageEnds && options.stageEnds.length !== options.schedule.length - 1) {
    throw new ConfigError(
      `guidance 'hints' options: stageEnds needs ${options.schedule.length - 1} steps (one per stage but the last), got ${options.stageEnds.length}`,
    );
  }
  if (options.stageEnds?.some((end, index) => index > 0 && end <= options.stageEnds![index - 1])) {
    throw new ConfigError("guidance 'hints' options: stageEnds must increase");
  }
  const { totalSteps } = requireWorkedSolutions('hints', context);
  let estimates = new Map<string, number>();
  let hardVisits = new Map<string, number>();
  const ledger = new GuidanceLedger();
  let lastP = 0;

  const isHard = (problem: Problem) => {
    const estimate = estimates.get(problem.id);
    return estimate !== undefined && estimate < options.threshold;
  };

  const attemptFor = (problem: Problem, p: number): PlannedAttempt => {
    const bare = { attempt: { problem, prompt: problem.prompt, prefix: '', guided: false }, strength: 0 };
    if (p <= 0 || !isHard(problem)) return bare;
    const visit = hardVisits.get(problem.id) ?? 0;
    hardVisits.set(problem.id, visit + 1);
    if (options.probeEvery > 0 && (visit + 1) % options.probeEvery === 0) return bare;
    const guarded = guardAgainstAnswer(solutionPrefix(problem, p), problem.answer, leakContext(problem));
    const tooShort = guarded.text.length < options.minHintChars;
    ledger.countLeak(guarded.violated, tooShort);
    if (tooShort) return bare;
    return {
      attempt: {
        problem,
        prompt: problem.prompt + options.marker + guarded.text,
        prefix: '',
        guided: true,
      },
      strength: guarded.text.length / problem.solution.length,
    };
  };

  return {
    name: 'hints',
    plan(problems, step) {
      lastP = hintFraction(options, totalSteps, step);
      return ledger.record(
        step,
        problems.map((problem) => attemptFor(problem, lastP)),
      );
    },
    observe(_step, outcomes: readonly GroupOutcome[]) {
      for (const { outcome, guided } of ledger.match(outcomes)) {
        if (guided || outcome.rewards.length === 0) continue;
        const passRate = outcome.rewards.filter((reward) => reward > 0).length / outcome.rewards.length;
        const previous = estimates.get(outcome.problem.id);
        estimates.set(
          outcome.problem.id,
          previous === undefined ? passRate : previous + options.emaRate * (passRate - previous),
        );
      }
    },
    state: () => ({
      estimates: Object.fromEntries(estimates),
      hardVisits: Object.fromEntries(hardVisits),
      ledger: ledger.state(),
    }),
    load(saved) {
      if (saved === null || saved === undefined) return;
      const state = parseConfig(stateSchema, saved, "guidance 'hints' saved state");
      estimates = new Map(Object.entries(state.estimates));
      hardVisits = new Map(Object.entries(state.hardVisits));
      ledger.load(state.ledger);
    },
    metrics: () => ({
      ...ledger.metrics(),
      'guidance/hint_p': lastP,
      'guidance/hard': [...estimates.values()].filter((estimate) => estimate < options.threshold).length,
    }),
  };
}

export const hintsGuidance = defineGuidance({
  id: 'hints',
  description:
    'partial-solution hints in the prompt for problems estimated hard, shortened as the policy improves',
  paper: {
    title: 'QuestA: Expanding Reasoning Capacity in LLMs via Question Augmentation',
    arxiv: '2507.13266',
    code: 'foreverlasting1202/QuestA AReaL/datasets/add_prefix.py',
  },
  optionsSchema: optionsSchema,
  create: createHintsGuidance,
});
