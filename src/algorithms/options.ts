// Parsing algorithm options with their zod schema: unknown keys and wrong types become one ConfigError
// that names the algorithm, the offending key and what is expected (for an unknown key: the allowed
// keys), with each issue structured in its `issues`.
import type { z } from 'zod';
import { configError } from '../core/config.ts';

/** Parses `raw` (undefined = all defaults) with `schema`; throws ConfigError naming `where` on failure. */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  where: string,
): z.output<Schema> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  throw configError(schema, result.error.issues, `invalid options for ${where}: `, '(options)');
}
