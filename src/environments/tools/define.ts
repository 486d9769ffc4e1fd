// A tool is defined once (issue 30): a name, a description, a zod schema of its input (the JSON Schema
// that OpenAI's `tools` field carries comes from it) and an async function. For the embedded character
// model a tool also reads a compact call, `<name>text</name>` (tag-tools.ts), through `fromText`: the
// text between the tags becomes the input. Every call goes through Tool.call, which checks the input
// against the schema, times the tool and bounds its output, so every tool gets the same checks.
import { z } from 'zod';
import { withDeadline } from '../../core/deadline.ts';

/** What defineTool takes. */
export interface ToolSpec<Input> {
  /** Letters, digits and '_' (a tag name and an OpenAI function name alike). */
  name: string;
  description: string;
  input: z.ZodType<Input>;
  /** The input of a compact call from the text between its tags. */
  fromText: (text: string) => unknown;
  run: (input: Input) => Promise<string>;
}

/** A defined tool, its input type erased: what environments hold and call. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** The OpenAI tool entry: { type: 'function', function: { name, description, parameters } }. */
  readonly openai: { type: 'function'; function: { name: string; description: string; parameters: unknown } };
  /** The input of a compact call from the text between its tags. */
  fromText(text: string): unknown;
  /** Runs one call on `raw` input (callTool's checks). */
  call(raw: unknown, options: CallOptions): Promise<ToolOutcome>;
}

/** The limits of one call: its timeout and the longest output shown. */
export interface CallOptions {
  timeoutMs: number;
  maxOutputChars: number;
}

/** What a call gave: the text for the model, or an error of the call (bad input) or of the tool. */
export type ToolOutcome =
  | { ok: true; output: string }
  | { ok: false; kind: 'parse' | 'tool'; message: string };

/** A tool from its spec; throws on a name that cannot be a tag or an OpenAI function name. */
export function defineTool<Input>(spec: ToolSpec<Input>): Tool {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(spec.name))
    throw new Error(
      `tool name '${spec.name}': use letters, digits and '_' (at most 64, not starting with a digit)`,
    );
  const { $schema: _schema, ...parameters } = z.toJSONSchema(spec.input) as Record<string, unknown>;
  return {
    name: spec.name,
    description: spec.description,
    openai: { type: 'function', function: { name: spec.name, description: spec.description, parameters } },
    fromText: spec.fromText,
    call: (raw, options) => callTool(spec, raw, options),
  };
}

/**
 * Runs one call: the input checked against the tool's schema ('parse' error naming the problem), the tool
 * awaited for at most `timeoutMs` ('tool' error when it throws or is late), its output cut to
 * `maxOutputChars` characters with a marker saying how much was left out.
 */
async function callTool<Input>(
  tool: ToolSpec<Input>,
  raw: unknown,
  options: CallOptions,
): Promise<ToolOutcome> {
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, kind: 'parse', message: `${issue.path.join('.') || 'input'}: ${issue.message}` };
  }
  try {
    const work = Promise.resolve().then(() => tool.run(parsed.data));
    const output = await withDeadline(work, options.timeoutMs, `no answer within ${options.timeoutMs} ms`);
    if (typeof output !== 'string') return { ok: false, kind: 'tool', message: 'the tool returned no text' };
    if (output.length <= options.maxOutputChars) return { ok: true, output };
    const cut = output.length - options.maxOutputChars;
    return { ok: true, output: `${output.slice(0, options.maxOutputChars)}…(${cut} more)` };
  } catch (error) {
    return { ok: false, kind: 'tool', message: error instanceof Error ? error.message : String(error) };
  }
}
