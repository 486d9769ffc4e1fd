// Tango's two phases in the RL step (component.ts), over a verifier policy trained here:
//   judge (after grading): the verifier writes `samples` verdicts on each completion (verdicts.ts); the mean
//     process score × processWeight is added to the completion's reward (the run's reward is the outcome
//     reward); each completion's verdicts become one verifier group, rewarded by outcome agreement;
//   train (after the policy's update, every `every` steps): GRPO on the verifier groups with the run's
//     advantage estimator and loss (no KL term), at the verifier's learning rate scaled by the policy's
//     schedule. The policy is trained on the rewards as they stand after the judge phase.
// "RL Tango: Reinforcing Generator and Verifier Together for Language Reasoning", arXiv 2505.15034 (code
// announced, not released). A completion without steps, one the verifier cannot encode, or one that
// leaves no room in its context for the verdicts gets no process reward and no verifier group (counted).

import { estimateGraded } from '../../../algorithms/advantages/unscored.ts';
import type { PolicyBackend } from '../../../core/policy.ts';
import type { Problem } from '../../../core/problem.ts';
import { bosPrompt } from '../../../tasks/format.ts';
import type { RlContext } from '../../rl/context.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { sampleRows } from '../../rl/sample-rows.ts';
import { updatePolicy } from '../../rl/update.ts';
import type { TangoOptions } from './tango-options.ts';
import { processScore, readVerdict, stepsOf, verifierReward } from './verdicts.ts';

interface Job {
  group: number;
  member: number;
  context: number[];
  steps: number;
}

/** What the judge phase counted this step, over every rollout round (dynamic sampling may run several). */
interface Tally {
  judged: number;
  skipped: number;
  /** Σ of the judged completions' process scores. */
  process: number;
  verdicts: number;
  valid: number;
  agreed: number;
  paid: number;
}

const emptyTally = (): Tally => ({
  judged: 0,
  skipped: 0,
  process: 0,
  verdicts: 0,
  valid: 0,
  agreed: 0,
  paid: 0,
});

export class VerifierRound {
  /** The verifier groups of this step, trained after the policy's update. */
  private pending: SampledGroup[] = [];
  private tally = emptyTally();
  private trainMetrics: Record<string, number> = {};

  constructor(
    readonly verifier: PolicyBackend,
    private readonly options: TangoOptions,
  ) {}

  metrics(): Record<string, number> {
    const { judged, skipped, process, verdicts, valid, agreed, paid } = this.tally;
    const share = (count: number, of: number) => (of > 0 ? count / of : 0);
    return {
      'tango/judged': judged,
      'tango/skipped': skipped,
      'tango/process_mean': share(process, judged),
      'tango/verifier_format': share(valid, verdicts),
      // verdicts well-formed and right about the outcome; the mean reward adds the format credit
      'tango/verifier_accuracy': share(agreed, verdicts),
      'tango/verifier_reward': share(paid, verdicts),
      ...this.trainMetrics,
    };
  }

  /** Judge phase: verdicts on every completion, process rewards added, verifier groups kept. */
  async judge(ctx: RlContext, groups: SampledGroup[]): Promise<void> {
    const { verifier, options } = this;
    const jobs: Job[] = [];
    const tally = this.tally;
    groups.forEach((group, g) => {
      group.completions.forEach((completion, i) => {
        const steps = stepsOf(completion).length;
        const context = this.encode(group.attempt.problem, completion);
        if (steps === 0 || context === null || context.length + steps + 1 > verifier.contextLength) {
          tally.skipped++;
          return;
        }
        jobs.push({ group: g, member: i, context, steps });
      });
    });
    const sampled = await sampleRows(
      verifier,
      jobs.map((job) => job.context),
      jobs.map(() => options.samples),
      jobs.map((job) => job.steps + 1),
      { temperature: options.temperature, topP: 1, seed: ctx.rng.nextUint32() },
    );
    jobs.forEach((job, k) => {
      const group = groups[job.group];
      // the outcome: the run's reward before the process reward is added (a verifiable reward: > 0 = right)
      const outcome = group.rewards[job.member] > 0;
      const verdicts = sampled[k].map((sequence) => readVerdict(sequence.text, job.steps, options));
      const rewards = verdicts.map((verdict, v) =>
        verifierReward(sampled[k][v].text, verdict, outcome, job.steps, options.formatCredit, options),
      );
      const score = verdicts.reduce((sum, verdict) => sum + processScore(verdict), 0) / verdicts.length;
      group.rewards[job.member] += options.processWeight * score;
      tally.judged++;
      tally.verdicts += verdicts.length;
      tally.valid += verdicts.filter((verdict) => verdict.steps !== null).length;
      tally.agreed += verdicts.filter((verdict, v) => verdict.steps !== null && rewards[v] === 1).length;
      tally.paid += rewards.reduce((a, b) => a + b, 0);
      tally.process += score;
      this.pending.push({
        attempt: {
          problem: group.attempt.problem,
          prompt: group.attempt.problem.prompt,
          prefix: '',
          guided: false,
        },
        context: job.context,
        rollouts: sampled[k],
        completions: sampled[k].map((sequence) => sequence.text),
        rewards,
        results: rewards.map((reward) => ({ reward, components: {} })),
      });
    });
  }

  /** Train phase: one GRPO update of the verifier on this step's verifier groups (every `every` steps). */
  async train(ctx: RlContext, step: number, learningRate: number): Promise<void> {
    const groups = this.pending;
    this.pending = [];
    if (groups.length === 0 || step % this.options.every !== 0) return;
    const estimate = estimateGraded(
      ctx.advantage,
      groups.map((group) => ({
        rewards: group.rewards,
        lengths: group.rollouts.map((rollout) => rollout.tokens.length),
        leftOut: group.rewards.map(() => false),
      })),
      ctx.advantageOptions,
    );
    const peak = ctx.config.train.learningRate;
    const rate = peak > 0 ? (this.options.learningRate * learningRate) / peak : 0;
    const { algorithm, rollout } = ctx.config;
    // The verifier's own context: its model, no reference (no KL term), no components, its temperature.
    const verifierCtx: RlContext = {
      ...ctx,
      policy: this.verifier,
      reference: null,
      components: [],
      config: {
        ...ctx.config,
        rollout: { ...rollout, temperature: this.options.temperature, topP: 1 },
        algorithm: { ...algorithm, kl: { ...algorithm.kl, coefficient: 0 } },
      },
    };
    const update = await updatePolicy(verifierCtx, groups, estimate, rate, null);
    this.trainMetrics['tango/verifier_trained'] = update.trainedSequences;
    this.trainMetrics['tango/verifier_lr'] = rate;
    for (const key of ['losses/policy', 'train/grad_norm']) {
      if (update.metrics[key] !== undefined)
        this.trainMetrics[`tango/verifier_${key.split('/')[1]}`] = update.metrics[key];
    }
  }

  /** Clears the step's metrics (a new step begins). */
  beginStep(): void {
    this.tally = emptyTally();
    this.trainMetrics = {};
  }

  private encode(problem: Problem, completion: string): number[] | null {
    try {
      return bosPrompt(this.verifier.tokenizer, problem.prompt + completion + this.options.suffix);
    } catch {
      return null;
    }
  }
}
