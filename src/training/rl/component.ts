// The run components' contract: an optional feature of the RL loop (rollout budget, expert traces, retry,
// ReLIFT, teachers, self-play) hooks into named phases of rlStep and may save state, report metrics and
// close what it built (ARCHITECTURE.md, "Run components"). Generic over the step's context `C` so this
// file and context.ts (RlComponent = RunComponent<RlContext>) do not import each other.
import type { AdvantageEstimate } from '../../algorithms/advantages/estimator.ts';
import type { SampledGroup as CoreSampledGroup } from '../../core/groups.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import type { GroupOutcome } from '../../core/selector.ts';
import type { ProblemOutcome, SampleAndVerifyOptions } from '../../eval/evaluate.ts';
import type { Attempt } from '../../guidance/guidance.ts';
import type { PhaseTimer } from './timer.ts';

/** A group of the loop (rollout.ts's SampledGroup, named from core: this file imports no phase). */
type SampledGroup = CoreSampledGroup<Attempt>;

/** What every hook of a step receives: the context, the step, its learning rate and the phase timer. */
export interface StepScopeOf<C> {
  ctx: C;
  step: number;
  learningRate: number;
  /** Times a hook's work under its own name (perf/… metrics); a hook that does nothing times nothing. */
  timer: PhaseTimer;
}

/**
 * The phases of rlStep a component may join, in the order the step calls them. Every hook of a phase runs
 * in registration order, one after the other (random draws happen in that order, so it is fixed).
 */
export interface StepHooks<C> {
  /** Before the batch is selected (self-play's generation round). */
  beforeSelect?(scope: StepScopeOf<C>): Promise<void>;
  /** Samples per selected problem (rollout budget); the first hook that answers decides. */
  planSizes?(scope: StepScopeOf<C>, problems: readonly Problem[]): number[] | undefined;
  /**
   * Samples each rollout round's groups instead of the single-turn sampler (multi-turn environments,
   * components/environment); the first hook that answers decides, undefined = not this hook.
   */
  sampleGroups?(
    scope: StepScopeOf<C>,
    attempts: readonly Attempt[],
    seed: number,
    sizes: readonly number[] | undefined,
  ): Promise<SampledGroup[]> | undefined;
  /** Each rollout round, after sampling and before grading (expert-trace injection). */
  afterSample?(scope: StepScopeOf<C>, attempts: readonly Attempt[], groups: SampledGroup[]): Promise<void>;
  /** Each rollout round, after grading (reflect-then-retry, teacher help). */
  afterGrade?(scope: StepScopeOf<C>, groups: SampledGroup[]): Promise<void>;
  /** Extra groups to train beside the filled batch (self-play's generator groups); not observed. */
  extraGroups?(scope: StepScopeOf<C>, groups: readonly SampledGroup[]): SampledGroup[];
  /**
   * Per-token advantages in place of the scalar ones (distillation's teacher term); the first hook that
   * answers decides. [group][sample], undefined = the scalar estimate stays for that sample.
   */
  advantageTerms?(
    scope: StepScopeOf<C>,
    groups: readonly SampledGroup[],
    estimate: AdvantageEstimate,
  ): Promise<(number[] | undefined)[][] | undefined>;
  /** After the policy update, with every group sampled this step (ReLIFT); returns step metrics. */
  afterUpdate?(scope: StepScopeOf<C>, sampledAll: readonly SampledGroup[]): Promise<Record<string, number>>;
  /** With the selector and guidance, what this step's groups taught (rollout budget's pass rates). */
  observe?(outcomes: readonly GroupOutcome[]): void;
  /**
   * Outside the step: samples and grades the run's held-out evaluation instead of single-turn sampling
   * (a multi-turn environment's episodes, so a run is evaluated the way it trains); the first hook that
   * answers decides, undefined = not this hook.
   */
  sampleEvaluation?(
    policy: PolicyBackend,
    problems: readonly Problem[],
    options: SampleAndVerifyOptions,
  ): Promise<ProblemOutcome[]> | undefined;
}

/** An optional feature of the RL loop, built by its definition (src/training/components/). */
export interface RunComponent<C> {
  /** Its name; also its key in a checkpoint's `extra` (`budget`, `relift`, `selfPlay`: older runs resume). */
  readonly id: string;
  readonly hooks: StepHooks<C>;
  /** Checkpoint state (a component without state saves nothing). */
  state?(): unknown;
  /** Restores `state()`'s value; undefined when the checkpoint holds none (a fresh start). */
  load?(saved: unknown): void;
  /**
   * Writes the models the component trains itself (Tango's verifier) into `dir` (`<checkpoint>/components/
   * <id>`), inside the checkpoint's staging directory, so they are saved atomically with the policy; a
   * resumed run's definition finds them through ComponentSetup.resumeCheckpoint.
   */
  saveModels?(dir: string): Promise<void>;
  /** Step metrics, taken once per step after the update (the last phase's results). */
  metrics?(): Record<string, number>;
  /** Releases what it built (teacher backends, a generator); called however the run ends. */
  close?(): Promise<void>;
}
