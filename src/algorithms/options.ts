// Parsing algorithm options with their zod schema: unknown keys and wrong types become one ConfigError
// that names the algorithm, the offending key and what is expected (for an unknown key: the allowed keys).
import type { z } from 'zod';
import { describeIssues } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';

/** Parses `raw` (undefined = all defaults) with `schema`; throws ConfigError naming `where` on failure. */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  where: string,
): z.output<Schema> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  throw new ConfigError(
    `invalid options for ${where}: ${describeIssues(schema, result.error.issues, '(options)')}`,
  );
}
