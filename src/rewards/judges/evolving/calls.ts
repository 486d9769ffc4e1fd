// The judge calls of `judge-evolving-rubric` (reward.ts): grading one member against the rubric
// (verifiers' RubricJudge shape: `name: yes|no` per criterion, `maxCriteria` per call), eliciting new
// criteria for a group (RLER: one call; OnlineRubrics: one per pair) and decomposing a coarse criterion
// (RRD). Elicitation and decomposition never fail the group: a failure is reported and grading goes on.
import type { Problem } from '../../../core/problem.ts';
import type { RewardInput, RewardResult } from '../../../core/reward.ts';
import type { JudgeAnswer, JudgeTransport } from '../client.ts';
import { type Criterion, checkCriteria, criteriaText } from '../criteria.ts';
import { baseValues, judgeFailed } from '../judge-reward.ts';
import { batchedChoices, criteriaBatches } from '../rubric.ts';
import { fence, type JudgeTemplate } from '../template.ts';
import type { EvolvingCriterion, RubricBuffer } from './buffer.ts';
import { pairsOf, readElicited, responsesListing, rubricListing } from './elicit.ts';
import { type EvolvingRubricOptions, WHERE } from './options.ts';

/** What one reward instance grades with: its options, persistent criteria, judge, templates, buffer. */
export interface Run {
  options: EvolvingRubricOptions;
  global: Criterion[];
  client: JudgeTransport;
  grade: JudgeTemplate;
  elicit: JudgeTemplate;
  decompose: JudgeTemplate;
  buffer: RubricBuffer;
}

/** The problem's persistent criteria: the reward's and its own `metadata.rubric`. */
export function persistentOf(run: Run, problem: Problem): Criterion[] {
  const own = problem.metadata?.rubric;
  return own === undefined
    ? run.global
    : [...run.global, ...checkCriteria(own, `${WHERE}: problem ${problem.id} metadata.rubric`)];
}

export type Graded =
  | { ok: true; values: number[]; answers: JudgeAnswer[] }
  | { ok: false; failure: RewardResult };

/** One member's verdict per criterion (normalised choice index), or its failure. */
export async function gradeMember(
  run: Run,
  problem: Problem,
  member: string,
  criteria: readonly Criterion[],
): Promise<Graded> {
  const batches = criteriaBatches(criteria, run.options.maxCriteria);
  const input: RewardInput = { problem, completion: member };
  let answers: JudgeAnswer[];
  const prompts = batches.map((batch) =>
    run.grade.render({ ...baseValues(input), criteria: criteriaText(batch) }),
  );
  try {
    answers = await Promise.all(prompts.map((prompt) => run.client.ask(prompt)));
  } catch (error) {
    return {
      ok: false,
      failure: judgeFailed(`judge call failed: ${(error as Error).message}`, run.options.onFailure, []),
    };
  }
  const choices = batchedChoices(answers, batches);
  if (!choices.ok) {
    return {
      ok: false,
      failure: judgeFailed(`judge verdict malformed: ${choices.why}`, run.options.onFailure, answers),
    };
  }
  const values = choices.value.map((index, i) => index / (criteria[i].choices.length - 1));
  for (const [b, prompt] of prompts.entries()) run.client.remember(prompt, answers[b]);
  return { ok: true, values, answers };
}

/** This group's new criteria (RLER: one call; OnlineRubrics: one per pair), never failing the group. */
export async function elicitFor(
  run: Run,
  problem: Problem,
  members: readonly string[],
  persistent: readonly Criterion[],
  step: number,
): Promise<{
  criteria: EvolvingCriterion[];
  dropped: number;
  failed: string | null;
  answers: JudgeAnswer[];
}> {
  const { options, buffer } = run;
  const listing = rubricListing([...persistent, ...buffer.active(problem.id)]);
  const common = {
    prompt: problem.prompt,
    answer: problem.answer,
    criteria: listing,
    max: String(options.maxNew),
  };
  const prompts =
    options.method === 'rler'
      ? [run.elicit.render({ ...common, responses: responsesListing(members) })]
      : pairsOf(members.length, options.pairs).map(([a, b]) =>
          run.elicit.render({ ...common, a: fence(members[a]), b: fence(members[b]) }),
        );
  const taken = new Set([...buffer.names(problem.id), ...persistent.map((c) => c.name.toLowerCase())]);
  const criteria: EvolvingCriterion[] = [];
  let dropped = 0;
  let failed: string | null = null;
  const answers: JudgeAnswer[] = [];
  for (const prompt of prompts) {
    try {
      const answer = await run.client.ask(prompt);
      answers.push(answer);
      const read = readElicited(
        answer.text,
        { keys: ['positive', 'negative'] },
        taken,
        options.maxNew - criteria.length,
        { depth: 0, step },
      );
      if (!read.ok) {
        failed = read.why;
        continue;
      }
      criteria.push(...read.value.criteria);
      dropped += read.value.dropped;
      run.client.remember(prompt, answer);
    } catch (error) {
      failed = (error as Error).message;
    }
  }
  return { criteria, dropped, failed, answers };
}

/** RRD: finer criteria for a coarse one (none when the call or its reply fails). */
export async function decomposeCriterion(
  run: Run,
  problem: Problem,
  parent: EvolvingCriterion,
  step: number,
): Promise<EvolvingCriterion[]> {
  const prompt = run.decompose.render({
    prompt: problem.prompt,
    answer: problem.answer,
    criterion: `${parent.name}: ${parent.text}`,
    max: String(run.options.maxNew),
  });
  try {
    const answer = await run.client.ask(prompt);
    const taken = run.buffer.names(problem.id);
    const read = readElicited(
      answer.text,
      { keys: ['criteria'], polarity: parent.polarity },
      taken,
      run.options.maxNew,
      {
        depth: parent.depth + 1,
        step,
      },
    );
    if (!read.ok) return [];
    run.client.remember(prompt, answer);
    return read.value.criteria;
  } catch {
    return [];
  }
}
