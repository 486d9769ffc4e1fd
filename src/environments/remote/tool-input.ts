// The input object of a remote tool from the text of a compact call `<name>text</name>`: ORS tools take a
// JSON object described by their input_schema, the character model writes plain text. The text is a JSON
// object when it reads as one (`<move>{"x": 1, "y": 2}</move>`); otherwise a tool of one parameter takes
// the text as that parameter (a number when the schema says number or integer), and a tool without
// parameters takes {}. Anything else is a parse error saying which parameters the tool takes.
import type { OrsToolSpec } from './ors-client.ts';

/** The call's input, or why the text cannot be one (a parse error shown to the policy). */
export type ToolInput = { ok: true; input: Record<string, unknown> } | { ok: false; message: string };

function asObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(trimmed) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The input of a call of `tool` written as `text` (see the file header). */
export function toolInput(tool: OrsToolSpec, text: string): ToolInput {
  const object = asObject(text);
  if (object) return { ok: true, input: object };
  const properties = (tool.input_schema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const names = Object.keys(properties);
  if (names.length === 0) return { ok: true, input: {} };
  if (names.length > 1)
    return {
      ok: false,
      message: `${tool.name} takes {${names.join(', ')}}: write a JSON object`,
    };
  const [name] = names;
  const type = properties[name]?.type;
  if (type === 'number' || type === 'integer') {
    const number = Number(text.trim());
    if (text.trim() === '' || !Number.isFinite(number) || (type === 'integer' && !Number.isInteger(number)))
      return {
        ok: false,
        message: `${tool.name}: ${name} must be ${type === 'integer' ? 'an integer' : 'a number'}`,
      };
    return { ok: true, input: { [name]: number } };
  }
  return { ok: true, input: { [name]: text } };
}
