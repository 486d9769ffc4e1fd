// docs/methods.md, generated from the plug-in definitions (src/core/plugin.ts) in the default
// registries: every method by kind, its description, paper (title, arXiv, code), source file and its
// options with their defaults (from the zod schema) and what the source says about each (the comment
// above the key: usually where the default comes from). `curricula docs` writes it; a test fails when
// the committed copy is stale (src/cli/docs/generated-docs.test.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { PluginInfo, PluginKind } from '../../core/plugin.ts';
import { type Registries, registeredPlugins } from '../../training/registries.ts';
import { jsonSchemaOf, schemaRows } from './schema-rows.ts';
import { headerDefaults, optionNote, siblingSources } from './source-notes.ts';

/** Where each kind's definitions live, and the heading of its section. */
const kindSections: readonly { kind: PluginKind; heading: string; folder: string }[] = [
  { kind: 'task', heading: 'Tasks', folder: 'src/tasks' },
  { kind: 'reward', heading: 'Rewards', folder: 'src/rewards' },
  { kind: 'selector', heading: 'Task selectors (curricula)', folder: 'src/curricula' },
  { kind: 'guidance', heading: 'Guidance scaffolds', folder: 'src/guidance' },
  { kind: 'advantage', heading: 'Advantage estimators', folder: 'src/algorithms/advantages' },
  { kind: 'loss', heading: 'Policy losses', folder: 'src/algorithms/losses' },
  { kind: 'policy-backend', heading: 'Policy backends', folder: 'src/training' },
  {
    kind: 'run-component',
    heading: 'Run components (optional features of train)',
    folder: 'src/training/components',
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'testing' ? [] : sourceFiles(path);
      return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
    });
}

/** The file that defines a plug-in: `id: '<id>'` (tasks: `name: '<id>'`) in its kind's folder. */
export function pluginSource(info: PluginInfo, root: string): string | undefined {
  const folder = kindSections.find((section) => section.kind === info.kind)?.folder;
  if (folder === undefined) return undefined;
  const quoted = `'${info.id}'`;
  const needles = info.kind === 'task' ? [`name: ${quoted}`, `const name = ${quoted}`] : [`id: ${quoted}`];
  const file = sourceFiles(join(root, folder)).find((path) => {
    const text = readFileSync(path, 'utf8');
    return needles.some((needle) => text.includes(needle));
  });
  return file === undefined ? undefined : relative(root, file).split('\\').join('/');
}

/** Escapes a table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function paperLine(info: PluginInfo): string {
  if (info.paper === undefined) return '- Paper: none (a baseline, or plumbing)';
  const { title, arxiv, code } = info.paper;
  const parts = [`"${title}"`, ...(arxiv ? [`arXiv ${arxiv}`] : []), ...(code ? [`code: ${code}`] : [])];
  return `- Paper: ${parts.join('; ')}`;
}

/** The source header's statement of where the defaults come from, when it has one. */
function defaultsLine(source: string | undefined, root: string): string[] {
  const text = source === undefined ? '' : headerDefaults(join(root, source));
  return text === '' ? [] : [`- ${text} (from the file's header)`];
}

/**
 * A default that names a file of the package (e.g. the shipped corpus, resolved from import.meta.url)
 * holds this checkout's absolute path; the index shows it under `<package>/` so it is the same on
 * every machine.
 */
function withoutRoot(json: string, root: string): string {
  const prefix = JSON.stringify(`${root.replace(/[\\/]+$/, '')}/`).slice(1, -1);
  return json.split(prefix).join('<package>/');
}

/** A plug-in as the index lists it; a run component names its block of the train config. */
export type IndexedPlugin = PluginInfo & { configBlock?: string };

function optionsTable(info: IndexedPlugin, source: string | undefined, root: string): string[] {
  if (info.kind === 'run-component') {
    return info.configBlock === undefined
      ? ["- Options: none of its own (it follows the run's guidance)"]
      : [
          `- Options: the \`${info.configBlock}\` block of the train config, in [config-reference.md](config-reference.md)`,
        ];
  }
  if (info.optionsSchema === undefined) return ['- Options: none'];
  const json = jsonSchemaOf(info.optionsSchema);
  const rows = json === undefined ? [] : schemaRows(json);
  if (rows.length === 0) return ['- Options: none'];
  const files = source === undefined ? [] : siblingSources(join(root, source));
  const lines = ['', '| option | type | default | from the source |', '|---|---|---|---|'];
  for (const row of rows) {
    const note = optionNote(row.key, files);
    const fallback = row.required ? '(required)' : '—';
    const shown =
      note.defaultExpression !== undefined
        ? `\`${note.defaultExpression}\``
        : row.default === undefined
          ? undefined
          : withoutRoot(row.default, root);
    const value = shown === undefined ? fallback : shown.startsWith('`') ? shown : `\`${shown}\``;
    const text = note.comment || row.description || '';
    lines.push(`| \`${row.key}\` | ${cell(row.type)} | ${cell(value)} | ${cell(text)} |`);
  }
  return lines;
}

function methodSection(info: IndexedPlugin, root: string): string[] {
  const source = pluginSource(info, root);
  return [
    `### \`${info.id}\``,
    '',
    info.description,
    '',
    paperLine(info),
    `- Source: ${source === undefined ? 'not found' : `\`${source}\``}`,
    ...defaultsLine(source, root),
    ...optionsTable(info, source, root),
    '',
  ];
}

/** The text of docs/methods.md for these registries and `others` (the repository at `root`). */
export function methodIndex(
  registries: Registries,
  root: string,
  others: readonly IndexedPlugin[] = [],
): string {
  const plugins: IndexedPlugin[] = [...registeredPlugins(registries), ...others];
  const lines = [
    '# Methods',
    '',
    '<!-- Generated by `npm run docs:methods` (`curricula docs`) from the plug-in definitions; do not edit.',
    '     src/cli/docs/generated-docs.test.ts fails when this copy is stale. -->',
    '',
    'Every built-in method, by kind: what it does, its paper, the file that defines it, and its options',
    "with their defaults. The text comes from each method's `define…({ id, description, paper,",
    'optionsSchema, create })` call (src/core/plugin.ts) and, in the last column, from the comment above',
    "the option's key in its schema — usually where the default comes from (the authors' code or config).",
    'A default in backticks that looks like code (e.g. `availableParallelism()`) is computed at run time.',
    'The config keys that name these methods are in [config-reference.md](config-reference.md).',
    '',
    '| kind | methods |',
    '|---|---|',
    ...kindSections.map(({ kind, heading }) => {
      const ids = plugins.filter((plugin) => plugin.kind === kind).map((plugin) => `\`${plugin.id}\``);
      return `| ${heading} | ${ids.join(', ')} |`;
    }),
    '',
  ];
  for (const { kind, heading } of kindSections) {
    const ofKind = plugins.filter((plugin) => plugin.kind === kind);
    lines.push(`## ${heading}`, '', ...ofKind.flatMap((info) => methodSection(info, root)));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
