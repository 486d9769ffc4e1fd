// Builds a run's components from their definitions, in order; if one fails, the ones built before it are
// closed (their teacher backends, a generator) and the error goes on. Returns the components and the
// selector the run draws from (the base one, wrapped by each component that draws beside it).
import type { TaskSelector } from '../../core/selector.ts';
import { closeComponents } from '../rl/component-lifecycle.ts';
import type { RlComponent } from '../rl/context.ts';
import type { BuiltComponent, ComponentSetup, PoolSetup, RlComponentDefinition } from './definition.ts';

export async function buildComponents(
  definitions: readonly RlComponentDefinition[],
  setup: ComponentSetup,
): Promise<{ components: RlComponent[]; selector: TaskSelector }> {
  const built: BuiltComponent[] = [];
  try {
    for (const definition of definitions) {
      const component = await definition.create(setup);
      if (component) built.push(component);
    }
  } catch (error) {
    await closeComponents(built);
    throw error;
  }
  const selector = built.reduce(
    (current, component) => component.selector?.(current) ?? current,
    setup.selector,
  );
  return { components: built, selector };
}

/** Each definition's pool check, in order (setup runs them before any model is loaded). */
export function checkComponents(definitions: readonly RlComponentDefinition[], setup: PoolSetup): void {
  for (const definition of definitions) definition.check?.(setup);
}
