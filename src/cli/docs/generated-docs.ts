// The generated documentation files and their text: docs/methods.md (every method, from the plug-in
// definitions) and docs/config-reference.md (the train config's keys). `curricula docs` writes them;
// ./generated-docs.test.ts regenerates them in memory and fails when a committed copy differs.
import { rlComponents } from '../../training/components/index.ts';
import { createDefaultRegistries } from '../../training/registries.ts';
import { configReference } from './config-reference.ts';
import { type IndexedPlugin, methodIndex } from './method-index.ts';

/** One generated file: its path under docs/ and its text. */
export interface GeneratedDoc {
  file: string;
  text: string;
}

/** The run components (src/training/components/) as plug-ins: id and description. */
export function componentPlugins(): IndexedPlugin[] {
  return rlComponents.map(({ id, description, block, paper }) => ({
    kind: 'run-component',
    id,
    description,
    ...(paper && { paper }),
    ...(block === undefined ? {} : { configBlock: block }),
  }));
}

/** The generated docs of the repository at `root` (from fresh default registries). */
export function generatedDocs(root: string): GeneratedDoc[] {
  return [
    { file: 'methods.md', text: methodIndex(createDefaultRegistries(), root, componentPlugins()) },
    { file: 'config-reference.md', text: configReference(root) },
  ];
}
