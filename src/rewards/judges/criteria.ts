// Rubric criteria, after verifiers v1's RubricJudge (`verifiers/v1/judges/rubric.py`): each criterion is
// `{name, text, weight, choices}` with the choices ordered worst → best; a verdict's choice scores its
// position normalised to [0, 1] (first 0, last 1) and the rubric's score is the weighted mean. A rubric comes
// inline in the reward's options or from a JSON file (`rubricFile`); a bad one is refused when the reward is
// built, with the criterion named: a weight that is not a finite number ≥ 0, weights that sum to 0, fewer
// than two choices or repeated ones, a name that cannot label a verdict line, two criteria of one name.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';

export const criterionSchema = z.strictObject({
  /** Labels the verdict line (`<name>: <choice>`) and the metric reward/rubric_<name>. */
  name: z.string(),
  /** What the judge checks, in words. */
  text: z.string().min(1),
  weight: z.number().default(1),
  /** Worst → best; default a pass/fail criterion. */
  choices: z.array(z.string()).default(['no', 'yes']),
});

export type Criterion = z.infer<typeof criterionSchema>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The criteria, checked; `where` names the reward (and the file) in errors. */
export function checkCriteria(raw: unknown, where: string): Criterion[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new ConfigError(`${where}: criteria must be a non-empty list of {name, text, weight, choices}`);
  }
  const criteria = raw.map((entry, i) => {
    const label = typeof entry?.name === 'string' ? `criterion '${entry.name}'` : `criterion ${i + 1}`;
    const parsed = criterionSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(`${where}: ${label}: ${issue.path.join('.') || '(entry)'}: ${issue.message}`);
    }
    const criterion = parsed.data;
    if (!NAME.test(criterion.name)) {
      throw new ConfigError(
        `${where}: ${label}: a name is letters, digits, '_' or '-' (at most 64), starting with a letter or digit`,
      );
    }
    if (!Number.isFinite(criterion.weight) || criterion.weight < 0) {
      throw new ConfigError(
        `${where}: ${label}: weight must be a finite number ≥ 0 (got ${criterion.weight})`,
      );
    }
    const choices = criterion.choices.map((choice) => choice.trim());
    if (choices.length < 2)
      throw new ConfigError(`${where}: ${label}: needs at least two choices (worst → best)`);
    if (choices.some((choice) => !/^[A-Za-z0-9_-]+$/.test(choice))) {
      throw new ConfigError(
        `${where}: ${label}: a choice is one word of letters, digits, '_' or '-' (got ${choices.map((c) => `'${c}'`).join(', ')})`,
      );
    }
    if (new Set(choices.map((choice) => choice.toLowerCase())).size !== choices.length) {
      throw new ConfigError(`${where}: ${label}: choices repeat (${choices.join(', ')})`);
    }
    return { ...criterion, choices };
  });
  const names = criteria.map((criterion) => criterion.name.toLowerCase());
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) throw new ConfigError(`${where}: two criteria are named '${repeated}'`);
  if (criteria.every((criterion) => criterion.weight === 0)) {
    throw new ConfigError(`${where}: every criterion has weight 0; give at least one a positive weight`);
  }
  return criteria;
}

/** Criteria from a JSON file: a list, or `{criteria: [...]}`. */
export function readCriteriaFile(path: string, where: string): Criterion[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${where}: cannot read rubric file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${where}: rubric file ${path} is not JSON: ${(error as Error).message}`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { criteria?: unknown } | null)?.criteria;
  return checkCriteria(list, `${where} (${path})`);
}

/** The weighted mean of the criteria's normalised choices (index / (choices − 1)). */
export function rubricScore(criteria: readonly Criterion[], indices: readonly number[]): number {
  let total = 0;
  let weights = 0;
  criteria.forEach((criterion, i) => {
    total += criterion.weight * (indices[i] / (criterion.choices.length - 1));
    weights += criterion.weight;
  });
  return total / weights;
}

/** The criteria as the prompt lists them: `- name (choices: a, b, c): text`. */
export function criteriaText(criteria: readonly Criterion[]): string {
  return criteria
    .map(
      (criterion) =>
        `- ${criterion.name} (choose one of: ${criterion.choices.join(', ')}): ${criterion.text}`,
    )
    .join('\n');
}
