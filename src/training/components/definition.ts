// How a run component is defined and what its definition is given at setup (RlComponent: rl/context.ts).
// A definition builds its component from the resolved config, or returns null when its block is off; the
// list of definitions is index.ts. Setup (rl/setup.ts) builds them in that order after the policy loads.
import type { PaperRef } from '../../core/plugin.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import type { TaskSelector } from '../../core/selector.ts';
import type { Guidance } from '../../guidance/guidance.ts';
import type { PolicyBackendRequest } from '../policy-backends.ts';
import type { RlConfig } from '../rl/config.ts';
import type { RlComponent } from '../rl/context.ts';

/** What a component's pool check sees: before any model is loaded. */
export interface PoolSetup {
  config: RlConfig;
  /** The selector's pool, and where it came from (for error messages). */
  pool: readonly Problem[];
  source: string;
  guidance: Guidance;
}

export interface ComponentSetup extends PoolSetup {
  policy: PolicyBackend;
  /** The selector over the base pool, before any component draws beside it. */
  selector: TaskSelector;
  /**
   * The checkpoint directory a resumed run starts from (its `components/<id>/` holds what the component's
   * saveModels wrote); absent for a new run.
   */
  resumeCheckpoint?: string;
  /** What setup passes the policy backend for frozen models (init path, fresh-model factory). */
  request: Omit<PolicyBackendRequest, 'checkpoint' | 'role'>;
}

/** A built component; `selector`: the selector the run draws from instead (self-play's generated pool). */
export interface BuiltComponent extends RlComponent {
  selector?(base: TaskSelector): TaskSelector;
}

export interface RlComponentDefinition {
  /** The component's id (rl/context.ts: also its checkpoint key). */
  id: string;
  description: string;
  /** The paper it implements (docs/methods.md); absent: plumbing. */
  paper?: PaperRef;
  /**
   * Its block of the train config, as config-blocks.ts places it ('rollout.budget', 'teacher', …);
   * absent: it has none (retry and expert traces follow the run's guidance).
   */
  block?: string;
  /** Checks its block without a pool or a model (ConfigError); validateRlConfig runs it, in order. */
  validate?(config: RlConfig): void;
  /** Refuses a pool or guidance it cannot serve (ConfigError) before any model is loaded (ReLIFT's demonstrations). */
  check?(setup: PoolSetup): void;
  create(setup: ComponentSetup): BuiltComponent | null | Promise<BuiltComponent | null>;
}

/** Identity helper that types a definition (as algorithms' define* do). */
export function defineRlComponent(definition: RlComponentDefinition): RlComponentDefinition {
  return definition;
}

/** The component `id` of a context, typed by its caller (tests and tools that inspect one feature). */
export function findComponent<T extends RlComponent>(
  components: readonly RlComponent[],
  id: string,
): T | undefined {
  return components.find((component) => component.id === id) as T | undefined;
}
