// Config parsing: YAML or JSON files validated by strict zod schemas. Every problem becomes one line that
// says where (file and key path), what is wrong, and — for unknown keys — which keys are allowed; the
// ConfigError also carries each problem structured (`issues`: path, zod's code, message). A file may start
// with UTF-8 byte-order marks; they are dropped before parsing.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigError, type ConfigIssue } from './errors.ts';
import { shortInput } from './quote-input.ts';

/** Validates `value` against `schema`; throws ConfigError naming `source` and each bad key path. */
export function parseConfig<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  source: string,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw configError(schema, result.error.issues, `${source}: `);
}

/**
 * The ConfigError of a failed parse: `prefix` + the one-line description (describeIssues) as its message,
 * and each issue structured (path, code, message) as its `issues`.
 */
export function configError(
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  prefix: string,
  topLevel?: string,
): ConfigError {
  return new ConfigError(`${prefix}${describeIssues(schema, issues, topLevel)}`, {
    issues: configIssues(schema, issues),
  });
}

/** zod's issues as ConfigError's: the path (symbols as strings), the code and the message without the path. */
export function configIssues(schema: z.ZodType, issues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((key) => (typeof key === 'number' ? key : String(key))),
    code: issue.code,
    message: issueMessage(schema, issue),
  }));
}

/**
 * The issues of a failed parse as one line: key path and message each, and for unknown keys the keys the
 * schema allows there. `topLevel` names the root in paths (e.g. '(options)' for an algorithm's options).
 */
export function describeIssues(
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  topLevel = '(top level)',
): string {
  return issues.map((issue) => describeIssue(schema, issue, topLevel)).join('; ');
}

/** Reads a YAML (or JSON) file and validates it. */
export function loadConfigFile<Schema extends z.ZodType>(schema: Schema, path: string): z.output<Schema> {
  return parseConfig(schema, readConfigFile(path), path);
}

/** Reads a YAML (or JSON) file without validating it (for overrides applied before validation). */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  // UTF-8 byte-order marks (editors on Windows add one, and a file saved so twice has two) are not
  // content: dropped. The YAML parser drops one itself; a second became part of the first key before.
  text = text.replace(/^\uFEFF+/, '');
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ConfigError(
      `${path}: not valid YAML: ${shortInput((error as Error).message.split('\n')[0], 200)}`,
    );
  }
  return value ?? {};
}

function describeIssue(schema: z.ZodType, issue: z.core.$ZodIssue, topLevel: string): string {
  const where = issue.path.length > 0 ? issue.path.join('.') : topLevel;
  if (issue.code === 'unrecognized_keys') {
    return `${unknownKeys(issue.keys)} at ${where}${allowedKeys(schema, issue.path)}`;
  }
  return `${where}: ${issue.message}`;
}

/** The message of one issue without its path (for unknown keys: the keys, and the allowed ones). */
function issueMessage(schema: z.ZodType, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return `${unknownKeys(issue.keys)}${allowedKeys(schema, issue.path)}`;
  return issue.message;
}

function unknownKeys(keys: readonly string[]): string {
  return `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((key) => `'${shortInput(key)}'`).join(', ')}`;
}

/** '; allowed: a, b' (or '; it takes no keys') for the object schema at `path`; '' when it is not known. */
function allowedKeys(schema: z.ZodType, path: readonly PropertyKey[]): string {
  const allowed = allowedKeysAt(schema, path);
  if (!allowed) return '';
  return allowed.length > 0 ? `; allowed: ${allowed.join(', ')}` : '; it takes no keys';
}

/** Keys of the object schema found by following `path` through wrappers (optional, default, array items). */
function allowedKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | null {
  let current: unknown = schema;
  for (const key of [...path, null]) {
    current = unwrap(current);
    const def = (current as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return null;
    if (key === null) {
      return def.type === 'object' ? Object.keys(def.shape as object) : null;
    }
    if (def.type === 'object') current = (def.shape as Record<string, unknown>)[String(key)];
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else return null;
  }
  return null;
}

function unwrap(schema: unknown): unknown {
  let current = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = (current as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
    if (!def) return current;
    if (['optional', 'default', 'nullable', 'prefault', 'readonly', 'catch'].includes(def.type as string)) {
      current = def.innerType;
    } else if (def.type === 'pipe') {
      current = def.in;
    } else {
      return current;
    }
  }
  return current;
}
