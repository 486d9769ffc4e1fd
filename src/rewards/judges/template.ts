// A judge's prompt template: `{{field}}` placeholders filled in one pass (after verifiers v1's judge
// prompts, `verifiers/v1/judge.py`). One pass means a value is never read as template text: a completion
// that contains `{{answer}}` cannot pull the reference answer into the prompt. Values the policy wrote
// (the completion) are put in a fence longer than any run of backticks inside them (verifiers'
// dynamically sized fence), so the policy cannot close the fence and write instructions to the judge
// outside it. A template that names a field the judge does not supply is refused when the reward is
// built (ConfigError listing the fields it has), before any sample is drawn.
import { ConfigError } from '../../core/errors.ts';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** A template checked against the fields its judge supplies. */
export interface JudgeTemplate {
  readonly text: string;
  /** The fields the template uses, in order of first use. */
  readonly fields: readonly string[];
  /** The prompt with every placeholder replaced (one pass). Throws when a used field has no value. */
  render(values: Readonly<Record<string, string>>): string;
}

/** Checks `text` against the fields a judge supplies; `where` names it in errors ("reward 'judge-rubric'"). */
export function compileTemplate(text: string, available: readonly string[], where: string): JudgeTemplate {
  const fields: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) if (!fields.includes(match[1])) fields.push(match[1]);
  const missing = fields.filter((field) => !available.includes(field));
  if (missing.length > 0) {
    throw new ConfigError(
      `${where}: the prompt template uses ${missing.map((field) => `{{${field}}}`).join(', ')}, which this judge does not supply (it has: ${available.map((field) => `{{${field}}}`).join(', ')})`,
    );
  }
  const stray = text.replace(PLACEHOLDER, '').match(/\{\{[^}]*\}\}/);
  if (stray)
    throw new ConfigError(`${where}: '${stray[0]}' in the prompt template is not a {{field}} placeholder`);
  return {
    text,
    fields,
    render(values) {
      return text.replace(PLACEHOLDER, (_, field: string) => {
        const value = values[field];
        if (value === undefined) throw new Error(`judge template: no value for {{${field}}}`);
        return value;
      });
    },
  };
}

/** `text` in a code fence longer than any run of backticks in it (at least three). */
export function fence(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return `${ticks}\n${text}\n${ticks}`;
}
