// The rows of an options table, from a zod schema: each key of an object schema with its type, its
// default and whether it is required, through zod 4's `z.toJSONSchema` (io 'input': what a user writes).
// Nested objects are flattened to dotted keys up to `depth` levels, so a config block's keys are listed.
import { z } from 'zod';

/** One option: dotted key, short type, default (JSON) and whether it must be given. */
export interface SchemaRow {
  key: string;
  type: string;
  /** JSON of the default; undefined when there is none. */
  default?: string;
  required: boolean;
  /** The schema's own description (`.describe(…)`), if any. */
  description?: string;
}

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
};

/** The JSON Schema of a zod schema (input side); undefined when zod cannot express it. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema | undefined {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return undefined;
  }
}

/** A short type: number, "a" | "b", string[], object, number | object, … */
export function shortType(node: JsonSchema): string {
  if (node.enum !== undefined) return node.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (node.const !== undefined) return JSON.stringify(node.const);
  const union = node.anyOf ?? node.oneOf;
  if (union !== undefined) return [...new Set(union.map(shortType))].join(' | ');
  if (node.type === 'array') return `${node.items === undefined ? 'unknown' : shortType(node.items)}[]`;
  if (Array.isArray(node.type)) return node.type.join(' | ');
  if (node.$ref !== undefined) return 'object';
  return node.type ?? 'any';
}

function objectNode(node: JsonSchema): JsonSchema | undefined {
  if (node.properties !== undefined) return node;
  const parts = node.allOf ?? node.anyOf;
  return parts?.find((part) => part.properties !== undefined);
}

/** Rows of every key of an object schema (nested objects as dotted keys, up to `depth` levels). */
export function schemaRows(root: JsonSchema, depth = 1, prefix = ''): SchemaRow[] {
  const node = objectNode(root);
  if (node?.properties === undefined) return [];
  const required = new Set(node.required ?? []);
  return Object.entries(node.properties).flatMap(([name, child]) => {
    const key = `${prefix}${name}`;
    const row: SchemaRow = {
      key,
      type: shortType(child),
      required: required.has(name) && child.default === undefined,
      ...(child.default === undefined ? {} : { default: JSON.stringify(child.default) }),
      ...(child.description === undefined ? {} : { description: child.description }),
    };
    const nested =
      depth > 1 && objectNode(child) !== undefined ? schemaRows(child, depth - 1, `${key}.`) : [];
    return [row, ...nested];
  });
}
