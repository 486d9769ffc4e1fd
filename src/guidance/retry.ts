// `retry` — reflect-then-retry. Sources: ERL, Experiential Reinforcement Learning (Shi et al., arXiv
// 2602.13949; paper only, no code found): first attempt → environment feedback → self-reflection → second
// attempt; the successful second attempt is "internalized" into the policy on the ORIGINAL input (an SFT
// term), so no reflection is needed at deployment. R^3L, Reflect-then-Retry RL (code shiweijiezero/R3L,
// trinity/common/workflows/envs/R3L/dapo/step_R3L_workflow.py): for math, n/2 first attempts and n/2
// retries share ONE group for the advantage; a retry follows a first attempt with reward < 1 (and a valid
// model-written reflection), its prompt = system prompt + "# Previous Attempt Analysis & Guidance" + the
// reflection; retries are trained WITH that guidance in the context; a successful retry is also re-rolled
// as SFT data in its own group.
//
// Here: plan() leaves every prompt bare. After a group is graded (retry phase, src/training/rl/
// retry-round.ts), a group that the trigger selects is retried: the retry prompt is `template` filled with
// the original prompt, one failed completion and the grader's feedback (retry-feedback.ts: the reward's
// reason plus a diagnosis of where the answer departs from the gold one, never the gold answer; both
// through the leakage guard). `samples` completions are drawn from it; successful ones replace the group's
// failed members (at most `maxReplace`, and always leaving one failure so the group keeps a contrast) and
// are trained with trainPrompt = the original prompt: update.ts recomputes their old log-probs under it.
//
// Options and defaults (the authors' where they exist):
// - trigger 'zero-success' (default): only groups with no success are retried — where GRPO has no signal.
//   ERL reflects after a failed first attempt, R^3L after one with reward < 1; 'any-failure'
//   retries every group with a failure.
// - samples: rollout.groupSize (ERL: one second attempt per first attempt, i.e. G for a failed group).
// - maxReplace: all but one of the group's failures (ERL trains every successful second attempt; a group
//   of only successes would have no GRPO advantage, so one failure stays).
// - pick 'first' (the first failed member; members are i.i.d.) or 'shortest' (fits small contexts best).
// - shown 'completion' (the whole failed attempt) or 'last-line' (its answer line only).
// - feedback 'both' (reason; diagnosis), 'reason' or 'diagnosis'.
// - template "Previous attempt:\n{attempt}\nFeedback: {feedback}\nTry again.\n{prompt}".
// Deviations: no reflection is generated — the policy is given the grader's feedback directly (our
// embedded models cannot write reflections; ERL's ablation finds the reflection the most important part).
// The default template puts the problem last so the completion starts where our models' completions
// start (R^3L puts the guidance in the system prompt, before the problem). Mixing: successful retries
// replace failed members of the group (as AMPO / LUFFY replace members; like R^3L, retries and first
// attempts share one group's advantage, but only successes enter, and trained on the bare prompt as ERL
// internalizes, not with the guidance in the context as R^3L trains its retries). Internalization is the
// configured RL loss on the replaced members (a positive advantage against the group's failures), not
// ERL's separate SFT term. R^3L's pivot (retry from the failing step), pivotal credit, positive
// amplification and reflection training, and ERL's cross-episode reflection memory, are not reproduced.
// Retried failures are not trained. Trigger: per group here; both papers retry per failed attempt.
// Metrics: guidance-ledger.ts on the FIRST round (unguided pass rate, unlocked), with guided_frac =
// retry_frac and guided_pass_rate = retry_pass_rate; plus guidance/retry_frac (share of this step's
// groups retried), guidance/retry_pass_rate (share of retry samples with reward > 0), guidance/retry_samples,
// guidance/retry_trained (retries that replaced a member this step), guidance/retry_unlocked (cumulative:
// problems with a zero-success first round that a retry solved).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { defineGuidance } from './define.ts';
import type { Attempt, Guidance, GuidanceContext } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema } from './guidance-ledger.ts';
import type { GradedGroup, RetryRequest } from './retry-contract.ts';
import { retryPrompt } from './retry-feedback.ts';

const optionsSchema = z.strictObject({
  /** Which graded groups are retried. */
  trigger: z.enum(['zero-success', 'any-failure']).default('zero-success'),
  /** Completions sampled per retried group (default: rollout.groupSize). */
  samples: z.number().int().positive().optional(),
  /** Successful retries that may replace failed members (default: all failures but one). */
  maxReplace: z.number().int().nonnegative().optional(),
  /** Which failed completion is shown. */
  pick: z.enum(['first', 'shortest']).default('first'),
  /** How much of it is shown. */
  shown: z.enum(['completion', 'last-line']).default('completion'),
  /** What the feedback says. */
  feedback: z.enum(['both', 'reason', 'diagnosis']).default('both'),
  /** The retry prompt, with {prompt} (required), {attempt} and {feedback}. */
  template: z.string().default('Previous attempt:\n{attempt}\nFeedback: {feedback}\nTry again.\n{prompt}'),
});

export type RetryOptions = z.output<typeof optionsSchema>;

const stateSchema = z.strictObject({
  ledger: ledgerStateSchema,
  retryUnlocked: z.array(z.string()),
});

interface StepCounts {
  groups: number;
  retried: number;
  samples: number;
  hits: number;
  trained: number;
}

const emptyCounts = (): StepCounts => ({ groups: 0, retried: 0, samples: 0, hits: 0, trained: 0 });

export function createRetryGuidance(rawOptions: unknown, context?: GuidanceContext): Guidance {
  const options = parseConfig(optionsSchema, rawOptions ?? {}, "guidance 'retry' options");
  if (!options.template.includes('{prompt}')) {
    throw new ConfigError(
      `guidance 'retry' options: template must contain {prompt} (the original problem), got ${JSON.stringify(options.template)}`,
    );
  }
  const samples = options.samples ?? context?.groupSize ?? 8;
  const ledger = new GuidanceLedger();
  let retryUnlocked = new Set<string>();
  let counts = emptyCounts();
  let countsStep: number | null = null;
  /** First-round rewards of this step's groups, per problem id in sampling order (for the ledger). */
  const firstRound = new Map<string, number[][]>();
  /** Retry requests whose group had no success in the first round. */
  const zeroFirst = new WeakSet<RetryRequest>();

  const startStep = (step: number) => {
    if (countsStep === step) return;
    countsStep = step;
    counts = emptyCounts();
    firstRound.clear();
  };

  const failedMember = (group: GradedGroup, failed: readonly number[]): number => {
    if (options.pick === 'first') return failed[0];
    return failed.reduce((best, index) =>
      group.completions[index].length < group.completions[best].length ? index : best,
    );
  };

  const shownText = (completion: string): string => {
    if (options.shown === 'completion') return completion;
    const lines = completion.trimEnd().split('\n');
    return lines[lines.length - 1];
  };

  const requestFor = (group: GradedGroup, index: number): RetryRequest | null => {
    const failed = group.results.flatMap((result, member) => (result.reward > 0 ? [] : [member]));
    const triggered =
      options.trigger === 'zero-success' ? failed.length === group.results.length : failed.length > 0;
    if (!triggered || failed.length === 0) return null;
    const shown = failedMember(group, failed);
    const original = group.attempt.trainPrompt ?? group.attempt.prompt;
    const prompt = retryPrompt({
      problem: group.attempt.problem,
      prompt: original,
      attempt: shownText(group.completions[shown]),
      result: group.results[shown],
      feedback: options.feedback,
      template: options.template,
    });
    ledger.countLeak(prompt.violated, prompt.dropped);
    const attempt: Attempt = {
      problem: group.attempt.problem,
      prompt: prompt.text,
      prefix: group.attempt.prefix,
      guided: true,
      trainPrompt: original,
    };
    const maxReplace = Math.min(options.maxReplace ?? Number.POSITIVE_INFINITY, failed.length - 1);
    const request = { group: index, attempt, samples, maxReplace };
    if (failed.length === group.results.length) zeroFirst.add(request);
    return request;
  };

  return {
    name: 'retry',
    plan(problems, step) {
      return ledger.record(
        step,
        problems.map((problem) => ({
          attempt: { problem, prompt: problem.prompt, prefix: '', guided: false },
          strength: 0,
        })),
      );
    },
    retry: {
      plan(step, groups) {
        startStep(step);
        const requests: RetryRequest[] = [];
        groups.forEach((group, index) => {
          const rewards = group.results.map((result) => result.reward);
          const queue = firstRound.get(group.attempt.problem.id) ?? [];
          queue.push(rewards);
          firstRound.set(group.attempt.problem.id, queue);
          const request = requestFor(group, index);
          if (request) requests.push(request);
        });
        counts.groups += groups.length;
        counts.retried += requests.length;
        return requests;
      },
      observe(step, results) {
        startStep(step);
        for (const { request, rewards, replaced } of results) {
          const hits = rewards.filter((reward) => reward > 0).length;
          counts.samples += rewards.length;
          counts.hits += hits;
          counts.trained += replaced;
          if (hits > 0 && zeroFirst.has(request)) retryUnlocked.add(request.attempt.problem.id);
        }
      },
    },
    observe(_step, outcomes: readonly GroupOutcome[]) {
      // The ledger measures the policy on the bare prompt: the first round's rewards, not the merged group.
      const first = outcomes.map((outcome) => {
        const rewards = firstRound.get(outcome.problem.id)?.shift();
        return rewards ? { ...outcome, rewards } : outcome;
      });
      ledger.match(first);
      firstRound.clear();
    },
    state: () => ({ ledger: ledger.state(), retryUnlocked: [...retryUnlocked] }),
    load(saved) {
      if (saved === null || saved === undefined) return;
      const state = parseConfig(stateSchema, saved, "guidance 'retry' saved state");
      ledger.load(state.ledger);
      retryUnlocked = new Set(state.retryUnlocked);
      counts = emptyCounts();
      countsStep = null;
      firstRound.clear();
    },
    metrics: () => {
      const metrics: Record<string, number> = {
        ...ledger.metrics(),
        'guidance/guided_frac': counts.groups > 0 ? counts.retried / counts.groups : 0,
        'guidance/retry_frac': counts.groups > 0 ? counts.retried / counts.groups : 0,
        'guidance/retry_samples': counts.samples,
        'guidance/retry_trained': counts.trained,
        'guidance/retry_unlocked': retryUnlocked.size,
      };
      delete metrics['guidance/guided_pass_rate'];
      if (counts.samples > 0) {
        metrics['guidance/retry_pass_rate'] = counts.hits / counts.samples;
        metrics['guidance/guided_pass_rate'] = counts.hits / counts.samples;
      }
      return metrics;
    },
  };
}

export const retryGuidance = defineGuidance({
  id: 'retry',
  description:
    'reflect-then-retry: a failed first attempt gets feedback and a second attempt in the same group',
  paper: {
    title: 'Experiential Reinforcement Learning',
    arxiv: '2602.13949',
    code: 'shiweijiezero/R3L (R^3L, reflect-then-retry RL)',
  },
  optionsSchema: optionsSchema,
  create: createRetryGuidance,
});
