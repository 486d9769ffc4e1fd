// ReLIFT — interleaved online fine-tuning on the hardest questions. Paper: Ma et al., "Learning What
// Reinforcement Learning Can't: Interleaved Online Fine-Tuning for Hardest Questions", arXiv 2506.07527.
// Code: TheRoadQaQ/ReLIFT, relift/verl/verl/relift/trainer.py (`fit`), actor.py (`sft_update_policy`),
// fsdp_worker.py, config/relift_trainer.yaml, examples/math-7b/train.sh (reference/curricula.md B6).
//
// Each RL step runs as configured (select → guide → sample → grade → filter → advantages → update); then
// this phase (step.ts calls `afterRl`):
// 1. Every group of the step (including groups a batch filter dropped: those are exactly the all-equal
//    groups) whose own members ALL got the failing reward (`failValue`, authors 0 — their "solve_none")
//    adds ONE item to the buffer (relift-buffer.ts: newest first), with a demonstration from the source
//    (relift-demonstrations.ts; default the worked solution). Rewards are the graders' raw ones (before a
//    KL reward penalty). Members injected as expert traces (off-policy guidance) do not count, and a group
//    with a grading error, or with no own member, is not added (we cannot tell that the policy failed).
// 2. When the buffer holds ≥ sftDataSize items, the first sftDataSize are taken out and trained on with
//    NLL of the demonstration tokens (relift-sft.ts), with ReLIFT's own learning rate and gradient clip.
// The authors add to the buffer before the RL update and run SFT after it in the same step; the RL update
// does not read the buffer, so doing both after it is the same. This phase draws nothing from the run's
// random stream, so a run whose buffer never fills trains exactly as without ReLIFT.
//
// Metrics (fixed names): relift/added (items added this step), relift/buffer_size (after this step's SFT),
// relift/sft_steps (SFT updates so far, cumulative), relift/sft_loss, relift/sft_grad_norm and
// relift/sft_tokens (only on steps that ran an SFT update), relift/source_failures (problems of this step
// that failed but got no demonstration: a source that answered null or threw).
// State (checkpoints, train.ts `extra.relift`): the buffer's items and the SFT update count.
// Deviations: see relift-options.ts (defaults scaled to the ladder, no entropy bonus) and relift-sft.ts
// (one AdamW state shared with RL; prompt + demonstration cut to the model's context).
import { z } from 'zod';
import { CheckpointError, ConfigError } from '../../../core/errors.ts';
import type { Problem } from '../../../core/problem.ts';
import type { RlConfig } from '../../rl/config.ts';
import type { RlContext } from '../../rl/context.ts';
import type { SampledGroup } from '../../rl/rollout.ts';
import { type BufferItem, ReliftBuffer } from './relift-buffer.ts';
import {
  type DemonstrationContext,
  type DemonstrationSource,
  demonstrationSources,
} from './relift-demonstrations.ts';
import { type ResolvedReliftOptions, resolveReliftOptions } from './relift-options.ts';
import { demonstrationSequence, sftUpdate } from './relift-sft.ts';

const stateSchema = z.strictObject({
  buffer: z.unknown(),
  sftSteps: z.number().int().nonnegative(),
});

/** True when every own (sampled) member of the group got exactly `failValue` and none failed grading. */
export function solvedNone(group: SampledGroup, failValue: number): boolean {
  const own = group.rollouts
    .map((rollout, index) => ({ rollout, result: group.results[index] }))
    .filter(({ rollout }) => (rollout.expertTokens ?? 0) === 0);
  return (
    own.length > 0 &&
    own.every(({ result }) => result !== undefined && !result.error && result.reward === failValue)
  );
}

export class Relift {
  readonly buffer = new ReliftBuffer();
  private sftSteps = 0;
  private readonly problems: Map<string, Problem>;

  constructor(
    readonly options: ResolvedReliftOptions,
    private readonly source: DemonstrationSource,
    pool: readonly Problem[],
  ) {
    this.problems = new Map(pool.map((problem) => [problem.id, problem]));
  }

  /** Buffers this step's failed problems, then runs an SFT update if the buffer is full enough. */
  async afterRl(
    ctx: RlContext,
    groups: readonly SampledGroup[],
    step: number,
    rlLearningRate: number,
  ): Promise<Record<string, number>> {
    const failed = groups.filter((group) => solvedNone(group, this.options.failValue));
    const { items, failures } = await this.demonstrate(
      failed.map((group) => group.attempt.problem),
      step,
    );
    this.buffer.add(items);
    const metrics: Record<string, number> = {
      'relift/added': items.length,
      'relift/source_failures': failures,
    };
    const batch = this.buffer.take(this.options.sftDataSize);
    if (batch) Object.assign(metrics, await this.train(ctx, batch, rlLearningRate));
    metrics['relift/buffer_size'] = this.buffer.size;
    metrics['relift/sft_steps'] = this.sftSteps;
    return metrics;
  }

  /** The training sequences of buffer items (prompt + demonstration + EOS), for the SFT update and tests. */
  sequences(ctx: Pick<RlContext, 'policy'>, items: readonly BufferItem[]) {
    const { tokenizer, contextLength } = ctx.policy;
    return items.map((item) =>
      demonstrationSequence(tokenizer, contextLength, this.problem(item.problemId), item.demonstration),
    );
  }

  state(): unknown {
    return { buffer: this.buffer.state(), sftSteps: this.sftSteps };
  }

  /** Restores a saved state (undefined/null: a fresh start). Every buffered problem must be in the pool. */
  load(state: unknown): void {
    if (state === undefined || state === null) {
      this.buffer.load(null);
      this.sftSteps = 0;
      return;
    }
    const parsed = stateSchema.safeParse(state);
    if (!parsed.success) throw new CheckpointError("the checkpoint's ReLIFT state is malformed");
    this.buffer.load(parsed.data.buffer);
    for (const item of this.buffer.state().items) this.problem(item.problemId);
    this.sftSteps = parsed.data.sftSteps;
  }

  private async demonstrate(
    problems: readonly Problem[],
    step: number,
  ): Promise<{ items: BufferItem[]; failures: number }> {
    if (problems.length === 0) return { items: [], failures: 0 };
    let texts: (string | null)[];
    try {
      texts = await this.source.demonstrate(problems);
      if (texts.length !== problems.length) texts = problems.map(() => null);
    } catch {
      texts = problems.map(() => null);
    }
    const items: BufferItem[] = [];
    problems.forEach((problem, index) => {
      const demonstration = texts[index];
      if (typeof demonstration === 'string' && demonstration !== '') {
        items.push({ problemId: problem.id, demonstration, step });
      }
    });
    return { items, failures: problems.length - items.length };
  }

  private async train(
    ctx: RlContext,
    items: readonly BufferItem[],
    rlLearningRate: number,
  ): Promise<Record<string, number>> {
    const { train } = ctx.config;
    const result = await sftUpdate(ctx.policy, this.sequences(ctx, items), {
      miniBatchSize: this.options.miniBatchSize,
      epochs: this.options.epochs,
      entropyTokens: this.options.entropyTokens,
      optim: {
        learningRate: this.options.learningRate ?? rlLearningRate,
        betas: train.betas,
        eps: train.eps,
        weightDecay: train.weightDecay,
        gradClip: this.options.gradClip,
      },
    });
    this.sftSteps++;
    return {
      'relift/sft_loss': result.loss,
      'relift/sft_grad_norm': result.gradNorm,
      'relift/sft_tokens': result.tokens,
    };
  }

  private problem(id: string): Problem {
    const problem = this.problems.get(id);
    if (!problem) {
      throw new CheckpointError(
        `the checkpoint's ReLIFT buffer holds problem ${id}, which is not in this run's pool`,
      );
    }
    return problem;
  }
}

/** Config checks that need no pool (setup.ts validateRlConfig): option arithmetic, the source's name. */
export function validateRelift(config: RlConfig): void {
  const options = config.algorithm.relift;
  if (!options.enabled) return;
  resolveReliftOptions(options, config.train.batchSize);
  demonstrationSources.get(options.demonstrations.name);
  if (options.entropyTokens !== null && (config.policy?.backend ?? 'embedded') !== 'embedded') {
    throw new ConfigError(
      `algorithm.relift.entropyTokens selects tokens by the policy's entropy, which needs the full next-token distribution: policy.backend embedded only (this run: ${config.policy?.backend})`,
    );
  }
}

/** ReLIFT for the run, or null when `algorithm.relift.enabled` is false; the source checks the pool. */
export function createRelift(config: RlConfig, context: DemonstrationContext): Relift | null {
  const options = config.algorithm.relift;
  if (!options.enabled) return null;
  const resolved = resolveReliftOptions(options, config.train.batchSize);
  const factory = demonstrationSources.get(options.demonstrations.name);
  return new Relift(resolved, factory(options.demonstrations.options, context), context.pool);
}
