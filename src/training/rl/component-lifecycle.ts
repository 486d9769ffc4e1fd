// The run's side of the components' lifecycle (rl/context.ts, RlComponent): their checkpoint state under
// their ids in `extra` (`budget`, `relift`, `selfPlay`: the keys older checkpoints hold), restoring it on
// resume, and closing them however the run ends.
import { join } from 'node:path';
import type { RlComponent } from './context.ts';

/** `{ [id]: state }` of every component that has state, in registration order. */
export function componentStates(components: readonly RlComponent[]): Record<string, unknown> {
  const states: Record<string, unknown> = {};
  for (const component of components) {
    if (component.state) states[component.id] = component.state();
  }
  return states;
}

/** Gives each component its saved state (undefined when the checkpoint holds none). */
export function loadComponents(components: readonly RlComponent[], extra: Record<string, unknown>): void {
  for (const component of components) component.load?.(extra[component.id]);
}

/** The models of every component that trains its own (saveModels), each under `dir/<id>`. */
export async function saveComponentModels(components: readonly RlComponent[], dir: string): Promise<void> {
  for (const component of components) {
    if (component.saveModels) await component.saveModels(join(dir, component.id));
  }
}

/** Closes every component in order; all are closed even if one throws (the first error is rethrown). */
export async function closeComponents(components: readonly RlComponent[]): Promise<void> {
  let failure: unknown;
  for (const component of components) {
    try {
      await component.close?.();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
