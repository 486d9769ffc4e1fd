// How an environment's tools were used in an evaluation (issue 30): per task and difficulty and overall,
// the tool calls per sample, the share of samples that called a tool at least once, pass@1 of the
// samples that did and of those that did not, and the errors per kind (parse, tool, environment) —
// counted over samples run as episodes (evaluate-episodes.ts); absent for single-turn evaluation.
import type { StepErrorKind } from '../environments/contract.ts';
import type { ProblemOutcome } from './evaluate.ts';

/** Tool use over a set of samples. */
export interface ToolUse {
  samples: number;
  /** Mean tool calls per sample. */
  callsPerSample: number;
  /** Share of samples with at least one call. */
  callRate: number;
  /** pass@1 over the samples with a call (null when none called). */
  passAt1WithCall: number | null;
  /** pass@1 over the samples without a call (null when every sample called). */
  passAt1WithoutCall: number | null;
  /** Errors per kind, summed over the samples. */
  errors: Record<StepErrorKind, number>;
  /** Over a chat API that returned token ids: samples checked, and those whose server re-rendered a turn. */
  tokenDrift?: { samples: number; drifted: number };
}

/** The tool use of `outcomes`, or undefined when they were not run as episodes. */
export function toolUse(outcomes: readonly ProblemOutcome[]): ToolUse | undefined {
  if (!outcomes.some((outcome) => outcome.episodes)) return undefined;
  let samples = 0;
  let calls = 0;
  const withCall = { samples: 0, correct: 0 };
  const withoutCall = { samples: 0, correct: 0 };
  const errors: Record<StepErrorKind, number> = { parse: 0, tool: 0, environment: 0 };
  const drift = { samples: 0, drifted: 0 };
  for (const outcome of outcomes) {
    outcome.episodes?.forEach((episode, index) => {
      samples++;
      calls += episode.toolCalls;
      const side = episode.toolCalls > 0 ? withCall : withoutCall;
      side.samples++;
      if (outcome.correct[index]) side.correct++;
      for (const kind of ['parse', 'tool', 'environment'] as const) errors[kind] += episode.errors[kind];
      if (episode.tokenDrift !== undefined) {
        drift.samples++;
        if (episode.tokenDrift > 0) drift.drifted++;
      }
    });
  }
  const rate = (side: { samples: number; correct: number }) =>
    side.samples > 0 ? side.correct / side.samples : null;
  return {
    samples,
    callsPerSample: samples > 0 ? calls / samples : 0,
    callRate: samples > 0 ? withCall.samples / samples : 0,
    passAt1WithCall: rate(withCall),
    passAt1WithoutCall: rate(withoutCall),
    errors,
    ...(drift.samples > 0 ? { tokenDrift: drift } : {}),
  };
}

/** Flat metrics of a group's tool use: eval/tools/<name>[/<task>/<difficulty>]. */
export function toolUseMetrics(use: ToolUse, suffix: string): Record<string, number> {
  const metrics: Record<string, number> = {
    [`eval/tools/calls_per_sample${suffix}`]: use.callsPerSample,
    [`eval/tools/call_rate${suffix}`]: use.callRate,
  };
  for (const kind of ['parse', 'tool', 'environment'] as const)
    metrics[`eval/tools/errors/${kind}${suffix}`] = use.errors[kind];
  return metrics;
}
