// The selector plug-in shape: `defineSelector({ id, description, paper, optionsSchema, create })`
// (src/core/plugin.ts), where `create(pool, options, context)` builds the selector for one run and
// validates its options with `optionsSchema`. Every selector file ends with its definition;
// ./index.ts lists them.

import { definePlugin, type Plugin, type PluginSpec } from '../core/plugin.ts';
import type { Problem } from '../core/problem.ts';
import type { TaskSelector } from '../core/selector.ts';
import type { SelectorContext } from './shared.ts';

/** Builds a selector from its pool and a config's `selector.options` (validated; ConfigError on bad ones). */
export type SelectorFactory = (pool: Problem[], options: unknown, context?: SelectorContext) => TaskSelector;

/** A selector plug-in: its fields and the factory its registry hands out. */
export type SelectorPlugin = Plugin<SelectorFactory>;

/** Defines a selector: `{ id, description, paper, optionsSchema, create: (pool, options, context) => TaskSelector }`. */
export function defineSelector(spec: PluginSpec<SelectorFactory>): SelectorPlugin {
  return definePlugin('selector', spec);
}
