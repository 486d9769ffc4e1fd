// Where evolving criteria come from: one judge call per group (RLER: the group's responses side by side,
// with the criteria the problem already has, as DR Tulu's instance-wise rubric generation asks), one call
// per pair of the group's responses (OnlineRubrics: what makes one response of a pair better than the
// other), and one call per coarse criterion (RRD: split it into finer ones). Every reply is a JSON object
// `{"positive": [{"name", "text"}], "negative": [...]}` (decomposition: `{"criteria": [...]}` keeping the
// parent's direction); entries whose name cannot label a verdict line, that repeat a name the problem has
// used, or that are empty are dropped and counted. Prompt wording is ours (the authors' prompts are for
// GPT-4-class generators; the templates are options).
import type { Criterion } from '../criteria.ts';
import { fence } from '../template.ts';
import { type Parsed, parseJson } from '../verdict.ts';
import type { EvolvingCriterion } from './buffer.ts';

export const DEFAULT_RLER_TEMPLATE = `You maintain the grading rubric of a task while a model is trained on it. Below are the task, several of the model's current responses, and the criteria the rubric already has.

The task:
{{prompt}}

The responses:
{{responses}}

The rubric so far:
{{criteria}}

Propose at most {{max}} new yes/no criteria that tell these responses apart and that the rubric does not cover yet: positive criteria (something the better responses do) and negative ones (a mistake or shortcut some responses make). Reply with one JSON object: {"positive": [{"name": "short_name", "text": "what to check"}], "negative": [...]}.`;

export const DEFAULT_PAIR_TEMPLATE = `Two responses to one task are compared to find what makes one better than the other.

The task:
{{prompt}}

Response A:
{{a}}

Response B:
{{b}}

The rubric so far:
{{criteria}}

Name at most {{max}} new yes/no criteria, not in the rubric, that capture the difference: positive criteria (what the better response does) and negative ones (the mistakes of the worse). Reply with one JSON object: {"positive": [{"name": "short_name", "text": "what to check"}], "negative": [...]}.`;

export const DEFAULT_DECOMPOSE_TEMPLATE = `A grading criterion is too coarse: almost every response satisfies it, so it cannot tell them apart.

The task:
{{prompt}}

The criterion:
{{criterion}}

Split it into at most {{max}} finer yes/no criteria that together mean the same and that a good response satisfies but a weaker one may not. Reply with one JSON object: {"criteria": [{"name": "short_name", "text": "what to check"}]}.`;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The criteria listed for an elicitation prompt (`(none)` for an empty rubric). */
export function rubricListing(criteria: readonly Criterion[]): string {
  if (criteria.length === 0) return '(none)';
  return criteria.map((criterion) => `- ${criterion.name}: ${criterion.text}`).join('\n');
}

/** The group's responses, numbered, each in its own fence. */
export function responsesListing(members: readonly string[]): string {
  return members.map((member, i) => `Response ${i + 1}:\n${fence(member)}`).join('\n\n');
}

/** OnlineRubrics' pairs within a group: the k-th from each end (0 with last, 1 with second-to-last, …). */
export function pairsOf(size: number, count: number): [number, number][] {
  const pairs: [number, number][] = [];
  for (let k = 0; k < count && k < size - 1 - k; k++) pairs.push([k, size - 1 - k]);
  return pairs;
}

export interface Elicited {
  criteria: EvolvingCriterion[];
  /** Entries dropped (bad or repeated name, empty text, over the limit). */
  dropped: number;
}

/** New criteria from a reply, named apart from `taken` (which grows with the ones kept). */
export function readElicited(
  text: string,
  shape: { keys: readonly ('positive' | 'negative' | 'criteria')[]; polarity?: 'positive' | 'negative' },
  taken: Set<string>,
  limit: number,
  origin: { depth: number; step: number },
): Parsed<Elicited> {
  const parsed = parseJson(text, []);
  if (!parsed.ok) return parsed;
  const lists = shape.keys.filter((key) => key in parsed.value);
  if (lists.length === 0) return { ok: false, why: `the reply has none of ${shape.keys.join(', ')}` };
  const criteria: EvolvingCriterion[] = [];
  let dropped = 0;
  for (const key of lists) {
    const list = parsed.value[key];
    if (!Array.isArray(list)) return { ok: false, why: `'${key}' is not a list` };
    for (const entry of list) {
      const name = typeof entry?.name === 'string' ? entry.name.trim() : '';
      const body = typeof entry?.text === 'string' ? entry.text.trim() : '';
      if (!NAME.test(name) || body === '' || taken.has(name.toLowerCase()) || criteria.length >= limit) {
        dropped++;
        continue;
      }
      taken.add(name.toLowerCase());
      criteria.push({
        name,
        text: body.slice(0, 500),
        weight: 1,
        choices: ['no', 'yes'],
        polarity: key === 'criteria' ? (shape.polarity ?? 'positive') : key,
        depth: origin.depth,
        step: origin.step,
      });
    }
  }
  return { ok: true, value: { criteria, dropped } };
}
