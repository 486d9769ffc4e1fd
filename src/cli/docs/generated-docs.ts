// The generated documentation files and their text: docs/methods.md (every method, from the plug-in
// definitions) and docs/config-reference.md (the train config's keys). `curricula docs` writes them;
// ./generated-docs.test.ts regenerates them in memory and fails when a committed copy differs.
import type { PluginInfo } from '../../core/plugin.ts';
import { rlComponents } from '../../training/components/index.ts';
import { createDefaultRegistries } from '../../training/registries.ts';
import { configReference } from './config-reference.ts';
import { methodIndex } from './method-index.ts';

/** One generated file: its path under docs/ and its text. */
export interface GeneratedDoc {
  file: string;
  text: string;
}

/** The run components (src/training/components/) as plug-ins: id and description. */
export function componentPlugins(): PluginInfo[] {
  return rlComponents.map(({ id, description }) => ({ kind: 'run-component', id, description }));
}

/** The generated docs of the repository at `root` (from fresh default registries). */
export function generatedDocs(root: string): GeneratedDoc[] {
  return [
    { file: 'methods.md', text: methodIndex(createDefaultRegistries(), root, componentPlugins()) },
    { file: 'config-reference.md', text: configReference(root) },
  ];
}
