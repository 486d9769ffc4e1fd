// Checkable criteria about a correct answer that do not contain the answer, per task: the rubric of
// `rubric-scaffold` (RuscaRL, arXiv 2508.16949). RuscaRL's HealthBench items come with human-written
// rubrics ("criterion", "points"); our synthetic tasks have none, so each task states criteria derived from
// its worked solution: the shape of the answer and facts about intermediate steps, never the answer.
//
// - addition:       "sum has 7 digits", "column 3 carries" / "column 3 no carry" (columns from the right)
// - modular-chain:  "4 lines, one per step", "step 2 result is odd"
// - string-compose: "answer has 5 letters", "step 2 gives 4 letters"
// - countdown:      "use all 4 numbers once", "step 2 uses *", "last step gives 112" (the target, which
//                   is in the prompt; the answer is the expression)
// Criteria come in the order above (shape first, then the steps in solution order), which `ordered`
// selection keeps. Every criterion passes the leakage guard (leakage.ts); one that contains the answer (a
// small numeric answer also matches a column number) is dropped, not cut — a cut criterion says nothing.
// A task without a rubric here is refused when the scaffold is built (ConfigError listing those that have one).
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Registry } from '../core/registry.ts';
import { countdownInstance } from '../tasks/countdown.ts';
import { solutionSteps } from '../tasks/task.ts';
import { answerPosition, leakContext } from './leakage.ts';

/** The criteria of one problem, before the leakage guard. */
export type RubricFunction = (problem: Problem) => string[];

/** `a op b=r` step lines (addition, modular-chain, countdown). */
function stepResults(problem: Problem): { left: string; right: string }[] {
  return solutionSteps(problem.solution).map((line) => {
    const equals = line.lastIndexOf('=');
    return { left: line.slice(0, equals), right: line.slice(equals + 1) };
  });
}

const addition: RubricFunction = (problem) => [
  `sum has ${problem.answer.length} digits`,
  ...stepResults(problem).map(
    ({ right }, index) => `column ${index + 1} ${right.startsWith('1') ? 'carries' : 'no carry'}`,
  ),
];

const modularChain: RubricFunction = (problem) => {
  const steps = stepResults(problem);
  return [
    `${steps.length} lines, one per step`,
    ...steps.map(
      ({ right }, index) => `step ${index + 1} result is ${Number(right) % 2 === 0 ? 'even' : 'odd'}`,
    ),
  ];
};

const stringCompose: RubricFunction = (problem) => [
  `answer has ${problem.answer.length} letters`,
  ...solutionSteps(problem.solution).map((line, index) => {
    const value = line.slice(line.indexOf(':') + 1);
    return `step ${index + 1} gives ${value.length} letters`;
  }),
];

const countdown: RubricFunction = (problem) => {
  const instance = countdownInstance(problem);
  const steps = stepResults(problem);
  return [
    ...(instance ? [`use all ${instance.numbers.length} numbers once`] : []),
    ...steps.map(({ left }, index) => `step ${index + 1} uses ${/[-+*/]/.exec(left.slice(1))?.[0] ?? '?'}`),
    ...(instance ? [`last step gives ${instance.target}`] : []),
  ];
};

export const rubrics = new Registry<RubricFunction>('rubric', (registry) =>
  registry
    .register('addition', addition)
    .register('modular-chain', modularChain)
    .register('string-compose', stringCompose)
    .register('countdown', countdown),
);

export interface ProblemRubric {
  /** The criteria that passed the leakage guard, in order. */
  criteria: string[];
  /** Criteria dropped because they contained the answer. */
  dropped: number;
}

/** The guarded rubric of one problem. */
export function problemRubric(problem: Problem): ProblemRubric {
  const all = rubrics.get(problem.task)(problem);
  const context = leakContext(problem);
  const criteria = all.filter((criterion) => answerPosition(criterion, problem.answer, context) < 0);
  return { criteria, dropped: all.length - criteria.length };
}

/** Refuses a pool with a task that has no rubric (config time, before any model is loaded). */
export function requireRubrics(pool: readonly Problem[], source: string): void {
  const missing = [...new Set(pool.map((problem) => problem.task))].filter((task) => !rubrics.has(task));
  if (missing.length > 0) {
    throw new ConfigError(
      `guidance 'rubric-scaffold' needs a rubric for every task, but ${source} has ${missing.join(', ')} (rubrics exist for ${rubrics.names().join(', ')}; src/guidance/rubrics.ts)`,
    );
  }
}
