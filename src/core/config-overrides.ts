// Command-line config overrides: `--set selector.name=adarft --set tasks.0.difficulties=[1,2,3,4]`.
// Each override is `path=value`; the path is dot-separated keys (array items by index) and the value is
// parsed as YAML, so numbers, booleans, lists and maps keep their types. Overrides apply to the raw file
// before validation, so a bad key or value is reported by the schema like one written in the file.
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './errors.ts';
import { shortInput } from './quote-input.ts';

export interface ConfigOverride {
  path: string[];
  value: unknown;
  text: string;
}

/** Parses one `path=value` override; throws ConfigError on a malformed one. */
export function parseOverride(text: string): ConfigOverride {
  const equals = text.indexOf('=');
  if (equals <= 0)
    throw new ConfigError(`--set '${shortInput(text)}': expected path=value, e.g. selector.name=sec`);
  const pathText = text.slice(0, equals).trim();
  const path = pathText.split('.');
  if (path.some((key) => key === '' || !/^[\w-]+$/.test(key))) {
    throw new ConfigError(
      `--set '${shortInput(text)}': bad key path '${shortInput(pathText)}' (dot-separated keys, e.g. train.steps)`,
    );
  }
  let value: unknown;
  try {
    value = parseYaml(text.slice(equals + 1));
  } catch (error) {
    throw new ConfigError(
      `--set '${shortInput(text)}': value is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  return { path, value: value ?? null, text };
}

/** Returns a copy of `raw` with each override set (creating missing maps along the way). */
export function applyOverrides(raw: unknown, overrides: readonly ConfigOverride[]): unknown {
  const root = structuredClone(raw ?? {});
  if (!isContainer(root))
    throw new ConfigError('config: the top level must be a map to take --set overrides');
  for (const override of overrides) {
    let node: Record<string, unknown> | unknown[] = root;
    override.path.forEach((key, depth) => {
      const last = depth === override.path.length - 1;
      const where = override.path.slice(0, depth + 1).join('.');
      if (Array.isArray(node)) {
        const index = Number(key);
        if (!Number.isInteger(index) || index < 0 || index > node.length) {
          throw new ConfigError(
            `--set '${shortInput(override.text)}': '${where}' needs an index 0..${node.length} into a list of ${node.length}`,
          );
        }
        if (last) node[index] = override.value;
        else node = descend(node, index, where, override.text);
      } else if (last) {
        node[key] = override.value;
      } else {
        node = descend(node, key, where, override.text);
      }
    });
  }
  return root;
}

function descend(
  parent: Record<string, unknown> | unknown[],
  key: string | number,
  where: string,
  text: string,
): Record<string, unknown> | unknown[] {
  const child = (parent as Record<string | number, unknown>)[key];
  if (child === undefined || child === null) {
    const created: Record<string, unknown> = {};
    (parent as Record<string | number, unknown>)[key] = created;
    return created;
  }
  if (!isContainer(child))
    throw new ConfigError(`--set '${shortInput(text)}': '${where}' is a value, not a map or list`);
  return child;
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

/** Commander collector for a repeatable `--set` option. */
export function collectOverride(text: string, previous: ConfigOverride[] = []): ConfigOverride[] {
  return [...previous, parseOverride(text)];
}
