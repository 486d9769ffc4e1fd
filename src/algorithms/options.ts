// Parsing algorithm options with their zod schema: unknown keys and wrong types become one ConfigError
// that names the algorithm, the offending key and what is expected.
import type { z } from 'zod';
import { ConfigError } from '../core/errors.ts';

/** Parses `raw` (undefined = all defaults) with `schema`; throws ConfigError naming `where` on failure. */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  where: string,
): z.output<Schema> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : '(options)';
    return `${path}: ${issue.message}`;
  });
  throw new ConfigError(`invalid options for ${where}: ${problems.join('; ')}`);
}
