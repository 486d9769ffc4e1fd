// The guidance plug-in shape: `defineGuidance({ id, description, paper, optionsSchema, create })`
// (src/core/plugin.ts), where `create(options, context)` builds the scaffold for one run and validates
// its options with `optionsSchema`. Every scaffold file ends with its definition; ./index.ts lists them.
import { definePlugin, type Plugin, type PluginSpec } from '../core/plugin.ts';
import type { GuidanceFactory } from './guidance.ts';

/** A guidance plug-in: its fields and the factory its registry hands out. */
export type GuidancePlugin = Plugin<GuidanceFactory>;

/** Defines a scaffold: `{ id, description, paper, optionsSchema, create: (options, context) => Guidance }`. */
export function defineGuidance(spec: PluginSpec<GuidanceFactory>): GuidancePlugin {
  return definePlugin('guidance', spec);
}
