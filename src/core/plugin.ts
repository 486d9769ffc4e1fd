// One plug-in shape for every extension point: a method is defined once, by
// `defineX({ id, description, paper: { title, arxiv?, code? }, optionsSchema, create })`, and that one
// object is what its registry holds, what `curricula docs` writes into docs/methods.md and what a user's
// plug-in looks like. The kinds: task, reward, selector, guidance, advantage, loss, policy backend, and
// the ones the issue-27 plan leaves room for (run component, environment, judge). Each folder has a typed
// wrapper (defineSelector in src/curricula/define.ts, …) that fixes the kind and the type of `create`.
// `create` is the entry the registry hands out under `id`: a factory for the kinds built per run with
// their options (reward, selector, guidance, policy backend); advantages, losses and tasks are stateless
// objects, so their wrappers return the object itself with the plug-in fields on it.
import type { z } from 'zod';
import { ConfigError } from './errors.ts';

/** The paper a method implements: its title, arXiv id, and the authors' code when there is one. */
export interface PaperRef {
  title: string;
  /** e.g. '2402.03300'. */
  arxiv?: string;
  /** The authors' (or the reference) code: a repository and, where useful, a file. */
  code?: string;
}

/** The extension points; the last three are reserved for the components issue 27 plans. */
export const pluginKinds = [
  'task',
  'reward',
  'selector',
  'guidance',
  'advantage',
  'loss',
  'policy-backend',
  'run-component',
  'environment',
  'judge',
] as const;
export type PluginKind = (typeof pluginKinds)[number];

/** What every plug-in says about itself (and what the method index prints). */
export interface PluginInfo {
  readonly kind: PluginKind;
  readonly id: string;
  /** One line: what it does. */
  readonly description: string;
  /** Absent: not from a paper (a baseline, or plumbing). */
  readonly paper?: PaperRef;
  /** The zod schema of its options (defaults included); absent: it takes none. */
  readonly optionsSchema?: z.ZodType;
}

/** What a define call takes: a paper may be given as a one-line string (the older define* shape). */
export interface PluginSpec<Create> {
  id: string;
  description: string;
  paper?: PaperRef | string;
  optionsSchema?: z.ZodType;
  create: Create;
}

/** A defined plug-in: its description and the entry its registry hands out. */
export interface Plugin<Create> extends PluginInfo {
  readonly create: Create;
}

/** `{title}` for a string citation; the object itself otherwise. */
export function paperRef(paper: PaperRef | string | undefined): PaperRef | undefined {
  return typeof paper === 'string' ? { title: paper } : paper;
}

/** One line: "title, arXiv 1234.56789" (for headers and listings). */
export function citePaper(paper: PaperRef | undefined): string {
  if (paper === undefined) return '';
  return paper.arxiv === undefined ? paper.title : `${paper.title}, arXiv ${paper.arxiv}`;
}

/** Checks the fields every kind shares; throws ConfigError naming the kind and id. */
export function pluginInfo(kind: PluginKind, spec: Omit<PluginSpec<unknown>, 'create'>): PluginInfo {
  if (typeof spec.id !== 'string' || spec.id.trim() === '' || spec.id !== spec.id.trim()) {
    throw new ConfigError(
      `${kind} id must be a non-empty string without surrounding spaces, got ${JSON.stringify(spec.id)}`,
    );
  }
  if (typeof spec.description !== 'string' || spec.description.trim() === '') {
    throw new ConfigError(`${kind} '${spec.id}' needs a one-line description`);
  }
  const paper = paperRef(spec.paper);
  return {
    kind,
    id: spec.id,
    description: spec.description,
    ...(paper === undefined ? {} : { paper }),
    ...(spec.optionsSchema === undefined ? {} : { optionsSchema: spec.optionsSchema }),
  };
}

/** Defines a plug-in of `kind`: the shared fields checked, `create` kept as given. */
export function definePlugin<Create>(kind: PluginKind, spec: PluginSpec<Create>): Plugin<Create> {
  return Object.freeze({ ...pluginInfo(kind, spec), create: spec.create });
}
