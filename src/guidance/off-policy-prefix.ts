// `off-policy-prefix` — expert tokens inside a group: LUFFY (Yan et al., "Learning to Reason under
// Off-Policy Guidance", arXiv 2504.14945; code ElliottYan/LUFFY `mix_src/mix_trainer.py`,
// `mix_core_alg.py`) and Prefix-RFT (Huang et al., arXiv 2507.01679; paper only), per
// reference/curricula.md B3.
//
// Every planned group gets `perGroup` expert traces (LUFFY n_prefix = 1) built from the problem's worked
// solution; each replaces one of the G sampled members (contract: guidance.ts `Attempt.offPolicy`). The
// trace is the first fraction p of the solution, in characters: p < 1 → the policy continues it (sampled,
// on-policy tokens, trained with the configured RL loss); p = 1 → the whole solution is the completion
// (LUFFY's default, min/max_prefix_ratio = 1.0). Expert tokens get the `expertLoss` term, by default
// LUFFY's policy shaping −A·p/(p+γ), γ = 0.1, no ratio, no clip (src/algorithms/losses/expert-tokens.ts).
//
// Default schedule: Prefix-RFT's cosine decay of p from 0.95 to 0.05 over train.steps,
// p(s) = to + (from − to)·(1 + cos(π·(s−1)/(T−1)))/2. For LUFFY proper: `schedule: constant, from: 1`.
// Advantages: the configured estimator over the mixed group (the trace's reward is one of the G).
// LUFFY uses GRPO without std (A = r − mean(r), `grpo_use_std=False`): configure `dr-grpo` (as
// examples/ladder-off-policy-prefix.yaml does); with `grpo` a trace's A is divided by the group's std.
//
// Deviations and unverified points:
// - LUFFY draws the prefix ratio from U[min, max] per trace (`prefix_strategy=random`); the schedule here
//   is deterministic (no random draw, so the state is only the ledger). Prefix-RFT's exact cosine form
//   and its group composition are unverified (paper only); its entropy-based clipping of prefix tokens
//   (gradient only at the top 20% entropy positions) is not implemented.
// - The split is in characters (as hints/oracle-prefix), at least one character.
// - Leakage guard: NOT applied. An expert trace is the answer by design (LUFFY trains on whole expert
//   solutions); the expert tokens are trained as the expert's, never shown in a prompt. Only the policy's
//   own members (bare prompt) measure what the policy can do: guidance/unguided_pass_rate.
// Metrics: guidance-ledger.ts (shared; with traces, a group's own members are its unguided samples and
// the traces its guided ones), guidance/prefix_fraction (this step's p), and from the loss
// offpolicy/token_frac (expert share of trained tokens) and offpolicy/prob_mean (mean π_θ of expert tokens).
import { z } from 'zod';
import { expertTermConfigSchema, expertTerms } from '../algorithms/losses/expert-tokens.ts';
import { parseOptions } from '../algorithms/options.ts';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { defineGuidance } from './define.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema, type PlannedAttempt } from './guidance-ledger.ts';
import { requireWorkedSolutions } from './worked-solution.ts';

const optionsSchema = z.strictObject({
  /** Expert traces per group, each replacing one sampled member (LUFFY n_prefix: 1). */
  perGroup: z.number().int().positive().default(1),
  /** How p moves from `from` (first step) to `to` (last step). */
  schedule: z.enum(['cosine', 'linear', 'constant']).default('cosine'),
  /** p at the first step (Prefix-RFT: 0.95; LUFFY: 1 with schedule constant). */
  from: z.number().gt(0).max(1).default(0.95),
  /** p at the last step (Prefix-RFT: 0.05). */
  to: z.number().gt(0).max(1).default(0.05),
  /** The term for expert tokens: { name: policy-shaping | sft | trust-region-sft, options } (LUFFY: policy-shaping, γ 0.1; TRAPO: trust-region-sft, α 0.1). */
  expertLoss: expertTermConfigSchema,
});
export type OffPolicyPrefixOptions = z.output<typeof optionsSchema>;

const stateSchema = z.strictObject({ ledger: ledgerStateSchema });

/** The scheduled fraction p of the worked solution at `step` (steps count from 1). */
export function prefixFraction(options: OffPolicyPrefixOptions, totalSteps: number, step: number): number {
  if (options.schedule === 'constant') return options.from;
  const x = totalSteps > 1 ? Math.min(1, Math.max(0, (step - 1) / (totalSteps - 1))) : 0;
  if (options.schedule === 'linear') return options.from + (options.to - options.from) * x;
  return options.to + ((options.from - options.to) * (1 + Math.cos(Math.PI * x))) / 2;
}

export function createOffPolicyPrefixGuidance(rawOptions: unknown, context?: GuidanceContext): Guidance {
  const options = parseConfig(optionsSchema, rawOptions ?? {}, "guidance 'off-policy-prefix' options");
  const term = expertTerms.get(options.expertLoss.name);
  parseOptions(term.optionsSchema, options.expertLoss.options, `expert term '${term.name}'`);
  const { totalSteps } = requireWorkedSolutions('off-policy-prefix', context);
  if (totalSteps < 1) throw new ConfigError("guidance 'off-policy-prefix' needs train.steps ≥ 1");
  const ledger = new GuidanceLedger();
  let lastP = 0;

  const attemptFor = (problem: Problem, p: number): PlannedAttempt => {
    const solution = problem.solution;
    const chars = Math.max(1, Math.min(solution.length, Math.floor(p * solution.length)));
    const trace = { text: solution.slice(0, chars), complete: chars === solution.length };
    return {
      attempt: {
        problem,
        prompt: problem.prompt,
        prefix: '',
        guided: true,
        offPolicy: Array.from({ length: options.perGroup }, () => trace),
      },
      strength: chars / solution.length,
    };
  };

  return {
    name: 'off-policy-prefix',
    expertLoss: options.expertLoss,
    plan(problems, step) {
      lastP = prefixFraction(options, totalSteps, step);
      return ledger.record(
        step,
        problems.map((problem) => attemptFor(problem, lastP)),
      );
    },
    observe(_step, outcomes) {
      ledger.match(outcomes);
    },
    state: () => ({ ledger: ledger.state() }),
    load(saved) {
      if (saved === null || saved === undefined) return;
      ledger.load(parseConfig(stateSchema, saved, "guidance 'off-policy-prefix' saved state").ledger);
    },
    metrics: () => ({ ...ledger.metrics(), 'guidance/prefix_fraction': lastP }),
  };
}

export const offPolicyPrefixGuidance = defineGuidance({
  id: 'off-policy-prefix',
  description:
    'expert traces inside a group (LUFFY, Prefix-RFT): members replaced by the worked solution or a prefix of it',
  paper: {
    title: 'Learning to Reason under Off-Policy Guidance',
    arxiv: '2504.14945',
    code: 'ElliottYan/LUFFY mix_src/mix_trainer.py, mix_core_alg.py',
  },
  optionsSchema: optionsSchema,
  create: createOffPolicyPrefixGuidance,
});
