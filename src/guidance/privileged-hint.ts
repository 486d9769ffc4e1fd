// `privileged-hint` — the hint conditions only the SCORER, never the student (privileged-context
// self-distillation: SDFT, Shenfeld et al., "Self-Distillation Enables Continual Learning", arXiv
// 2601.19897, code in tinker-cookbook `distillation/sdft.py` and TRL `trl/experimental/sdft`; OPSD,
// Penaloza et al., "Privileged Information Distillation for Language Models", arXiv 2602.04942; the
// reference notes' E2 recommendation). The student samples from the BARE prompt; a teacher scores the
// student's own tokens given prompt + hint, and the OPD term (src/algorithms/opd.ts) moves the student
// towards what it would write had it seen the hint. The hint is never part of the student's input, so it
// cannot leak into it by construction — the contrast to `hints`, which puts the same text in the prompt.
//
// Plan: every problem gets privilegedContext = marker + the first `fraction` of its worked solution,
// through the leakage guard (leakage.ts: cut before the final answer; shorter than minHintChars →
// no hint for that group, counted in guidance/leak_dropped). The student's attempt is bare (guided:
// false), so its samples are the run's unguided pass rate and `guidance/unlocked` counts its own
// successes. The step's distillation phase (src/training/components/teachers/distillation.ts) scores and builds the term.
//
// What the authors do, and what is followed:
// - Which model scores: tinker-cookbook SDFT uses a STATIC teacher, a sampling client of the base model
//   (optionally hard-synced every `teacher_sync_every` steps); TRL SDFT's `teacher_model_kind` defaults to
//   "base" (the initial student), with "live" and "ema" as options. Default here: `teacher: initial`, a
//   frozen copy of init.checkpoint (built like the KL reference, rebuilt from init on resume). Options:
//   `current` (the policy itself at the sampling weights: TRL "live"), or a pool teacher's name (OPSD with
//   a separate teacher). EMA and periodic sync are not built.
// - Coefficient and tokens: the cookbook replaces the advantages with teacher_lp − student_lp on every
//   completion token (coefficient 1, no reward term): defaults coef 1, taskAdvantage false, discount 0.
//   `taskAdvantage: true` adds the task advantage back (the RLSD-style combination).
// - Divergence: TRL SDFT distils top-k logits with a JSD (distillation_alpha 0.5, topk 100); the
//   PolicyBackend contract scores sampled tokens only, so here it is the cookbook's per-token reverse-KL
//   estimate on the sampled token (TRL alpha 1 without top-k). Deviation.
// - Teacher prompt: the cookbook wraps the golden answer in a demonstration template ("This is an example
//   for a response..."), TRL uses "{prompt}\n\n{privileged_context}". Here prompt + marker + hint with
//   `hints`' marker, so the scorer sees exactly the text `hints` would show the student. The golden
//   answer is cut before its final answer by the leakage guard (ours: the authors show it whole).
// - Context: a hint that would not fit the scorer's context with the group's longest completion is cut
//   from its end (the cookbook truncates the completion instead; distillation.ts counts the cuts).
import { z } from 'zod';
import { opdOptionsSchema } from '../algorithms/opd.ts';
import { parseConfig } from '../core/config.ts';
import type { Problem } from '../core/problem.ts';
import { defineGuidance } from './define.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema, type PlannedAttempt } from './guidance-ledger.ts';
import { guardAgainstAnswer, leakContext } from './leakage.ts';
import { requireWorkedSolutions, solutionPrefix } from './worked-solution.ts';

const optionsSchema = z.strictObject({
  /** Who scores: 'initial' (frozen init.checkpoint), 'current' (the policy itself), or a pool teacher. */
  teacher: z.string().min(1).default('initial'),
  /** Fraction of the worked solution shown to the scorer (cut before the answer by the guard). */
  fraction: z.number().gt(0).max(1).default(1),
  /** A hint shorter than this many characters is omitted (as `hints`). */
  minHintChars: z.number().int().nonnegative().default(10),
  /** Put between the problem and the hint (`hints`' and QuestA's marker). */
  marker: z.string().default('\n\n## Hint.'),
  /** The OPD term: coefficient, discount, and whether the task advantage is kept (SDFT: no). */
  coef: opdOptionsSchema.shape.coef,
  discount: opdOptionsSchema.shape.discount,
  taskAdvantage: z.boolean().default(false),
});

export type PrivilegedHintOptions = z.output<typeof optionsSchema>;

export function createPrivilegedHintGuidance(rawOptions: unknown, context?: GuidanceContext): Guidance {
  const options = parseConfig(optionsSchema, rawOptions ?? {}, "guidance 'privileged-hint' options");
  requireWorkedSolutions('privileged-hint', context);
  const ledger = new GuidanceLedger();
  let groups = 0;
  let privileged = 0;
  let strengthSum = 0;
  let countedStep: number | null = null;

  const attemptFor = (problem: Problem): PlannedAttempt => {
    const attempt = { problem, prompt: problem.prompt, prefix: '', guided: false };
    const guarded = guardAgainstAnswer(
      solutionPrefix(problem, options.fraction),
      problem.answer,
      leakContext(problem),
    );
    const tooShort = guarded.text.length < options.minHintChars;
    ledger.countLeak(guarded.violated, tooShort);
    if (tooShort) return { attempt, strength: 0 };
    privileged++;
    strengthSum += guarded.text.length / problem.solution.length;
    return { attempt: { ...attempt, privilegedContext: options.marker + guarded.text }, strength: 0 };
  };

  return {
    name: 'privileged-hint',
    privilegedScorer: {
      teacher: options.teacher,
      opd: { coef: options.coef, discount: options.discount, taskAdvantage: options.taskAdvantage },
    },
    plan(problems, step) {
      // Per step: the counts cover every plan() of the step (dynamic sampling plans several times).
      if (countedStep !== step) {
        countedStep = step;
        groups = 0;
        privileged = 0;
        strengthSum = 0;
      }
      groups += problems.length;
      return ledger.record(step, problems.map(attemptFor));
    },
    observe(_step, outcomes) {
      ledger.match(outcomes);
    },
    state: () => ledger.state(),
    load(saved) {
      if (saved === null || saved === undefined) return;
      ledger.load(parseConfig(ledgerStateSchema, saved, "guidance 'privileged-hint' saved state"));
    },
    metrics: () => ({
      ...ledger.metrics(),
      'guidance/privileged_frac': groups > 0 ? privileged / groups : 0,
      'guidance/privileged_strength': privileged > 0 ? strengthSum / privileged : 0,
    }),
  };
}

export const privilegedHintGuidance = defineGuidance({
  id: 'privileged-hint',
  description:
    "the hint conditions only the scorer: a teacher given the hint scores the student's own tokens (OPD term)",
  paper: {
    title: 'Self-Distillation Enables Continual Learning',
    arxiv: '2601.19897',
    code: 'thinking-machines-lab/tinker-cookbook distillation/sdft.py',
  },
  optionsSchema: optionsSchema,
  create: createPrivilegedHintGuidance,
});
