// Conformance of a Task (src/tasks/task.ts): the checks every built-in task passes (src/tasks/
// conformance.test.ts runs this on each) and a user's task can be run through (`checkTask` in
// src/api/testing.ts). Each failure is a ConformanceError naming the broken property, e.g.
// "task 'my-task': verify(problem, its own solution) is correct at difficulty 2, seed 0 (got {...})".
import { Checker, type ConformanceReport, deepEqual, preview } from '../core/conformance.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { sampledMaxSequenceLength } from './lengths.ts';
import { solutionSteps, type Task } from './task.ts';

/** Whether a solution ends with `A:<answer>`, or with that line and then one stated-confidence line `C:…`. */
function endsWithAnswerLine(solution: string, answer: string): boolean {
  if (solution.endsWith(`\nA:${answer}`)) return true;
  const at = solution.lastIndexOf(`\nA:${answer}\nC:`);
  return at >= 0 && !solution.slice(at + answer.length + 6).includes('\n');
}

/** Options of checkTask. */
export interface TaskCheckOptions {
  /** Seeds per difficulty level for the worked-solution check (default 40). */
  seeds?: number;
  /** Problems per level sampled for the declared length bound (default 300). */
  lengthSamples?: number;
}

/** Completions a verifier must grade as wrong, with a reason, without throwing. */
const garbage = [
  '',
  'A:',
  'A:\u0000',
  '\n\n\nA:  \n',
  'A:((((',
  'A:)*/',
  'a:1',
  'A:'.repeat(500),
  '🙂A:🙂',
  'A:1/0',
];

/** Runs `task` through the task contract; throws ConformanceError at the first broken property. */
export function checkTask(task: Task, options: TaskCheckOptions = {}): ConformanceReport {
  const check = new Checker(`task '${task?.name}'`);
  check.that(typeof task === 'object' && task !== null, 'is an object');
  check.that(typeof task.name === 'string' && task.name.length > 0, 'has a name');
  for (const method of ['generate', 'verify', 'extractAnswer'] as const) {
    check.that(typeof task[method] === 'function', `has a ${method}() method`);
  }
  const { min, max } = task.difficulty ?? {};
  check.that(
    Number.isInteger(min) && Number.isInteger(max) && min <= max,
    'difficulty.min ≤ difficulty.max are integers',
    () => preview(task.difficulty),
  );
  check.that(typeof task.alphabet === 'string', 'has an alphabet string');
  workedSolutions(check, task, options.seeds ?? 40);
  wrongAnswers(check, task);
  determinism(check, task);
  lengthBound(check, task, options.lengthSamples ?? 300);
  numericParameters(check, task);
  return check.report();
}

function workedSolutions(check: Checker, task: Task, seeds: number): void {
  const { name } = task;
  for (let level = task.difficulty.min; level <= task.difficulty.max; level++) {
    for (let seed = 0; seed < seeds; seed++) {
      const at = `at difficulty ${level}, seed ${seed}`;
      const problem = check.call(`generate() ${at}`, () => task.generate(new Rng(seed * 31 + level), level));
      const got = () => preview(problem, 160);
      check.that(typeof problem === 'object' && problem !== null, `generate() returns a problem ${at}`, got);
      check.that(problem.task === name, `problem.task is the task name ${at}`, got);
      check.that(problem.difficulty === level, `problem.difficulty is the level asked for ${at}`, got);
      check.that(problem.category === name, `problem.category is the task name ${at}`, got);
      check.that(
        typeof problem.id === 'string' && problem.id.startsWith(`${name}-${level}-`),
        `problem.id starts with '<task>-<level>-' ${at}`,
        got,
      );
      check.that(
        typeof problem.prompt === 'string' && problem.prompt.endsWith('\n'),
        `problem.prompt ends with a newline ${at}`,
        got,
      );
      check.that(
        typeof problem.solution === 'string' && endsWithAnswerLine(problem.solution, problem.answer),
        `problem.solution ends with the line 'A:<answer>' (or that line and a stated-confidence line 'C:<q>') ${at}`,
        got,
      );
      const extracted = check.call(`extractAnswer(solution) ${at}`, () =>
        task.extractAnswer(problem.solution),
      );
      check.that(extracted === problem.answer, `extractAnswer(solution) is the answer ${at}`, () =>
        preview(extracted),
      );
      const steps = solutionSteps(problem.solution);
      check.that(
        steps.length >= 1 && steps.every((step) => !step.startsWith('A:') && step !== ''),
        `the solution has at least one step line before the answer, none empty ${at}`,
        got,
      );
      const verdict = check.call(`verify(problem, solution) ${at}`, () =>
        task.verify(problem, problem.solution),
      );
      check.that(
        deepEqual(verdict, { correct: true, extracted: problem.answer }),
        `verify(problem, its own solution) is {correct: true, extracted: answer} ${at}`,
        () => preview(verdict),
      );
      const outside = [...(problem.prompt + problem.solution)].filter((c) => !task.alphabet.includes(c));
      check.that(outside.length === 0, `prompt and solution use only the alphabet ${at}`, () =>
        preview([...new Set(outside)].join('')),
      );
    }
  }
}

function wrongAnswers(check: Checker, task: Task): void {
  const rng = new Rng(5);
  const level = task.difficulty.max;
  const problem = task.generate(rng, level);
  let other: Problem = task.generate(rng, level);
  for (let tries = 0; other.answer === problem.answer && tries < 100; tries++)
    other = task.generate(rng, level);
  if (other.answer !== problem.answer) {
    const verdict = check.call('verify(another answer)', () => task.verify(problem, `A:${other.answer}`));
    check.that(
      verdict?.correct === false && typeof verdict.reason === 'string' && verdict.reason.length > 0,
      "verify() rejects another problem's answer with a reason",
      () => preview(verdict),
    );
  }
  for (const completion of garbage) {
    const verdict = check.call(`verify(${preview(completion, 20)})`, () => task.verify(problem, completion));
    check.that(
      verdict?.correct === false && typeof verdict.reason === 'string',
      'verify() grades garbage as wrong with a reason, without throwing',
      () => `${preview(completion, 20)} → ${preview(verdict)}`,
    );
  }
}

function determinism(check: Checker, task: Task): void {
  const first = task.generate(new Rng(99), task.difficulty.min);
  const again = task.generate(new Rng(99), task.difficulty.min);
  check.that(
    deepEqual(again, first),
    'generate() is deterministic by seed',
    () => `${preview(first)} vs ${preview(again)}`,
  );
  check.that(
    deepEqual(JSON.parse(JSON.stringify(first)), first),
    'a problem survives a JSON round trip',
    () => preview(first),
  );
}

function lengthBound(check: Checker, task: Task, samples: number): void {
  if (!task.maxSequenceTokens) return;
  for (let level = task.difficulty.min; level <= task.difficulty.max; level++) {
    const sampled = sampledMaxSequenceLength(task, level, { samples });
    const bound = task.maxSequenceTokens(level);
    check.that(
      sampled <= bound,
      'sequences stay within maxSequenceTokens(difficulty)',
      () => `difficulty ${level}: sampled ${sampled} > declared ${bound}`,
    );
  }
}

function numericParameters(check: Checker, task: Task): void {
  if (!task.generateFromParams || !task.parameters) return;
  const rng = new Rng(11);
  for (const position of [0, 0.5, 1, -1, 2]) {
    const params: Record<string, number> = {};
    for (const range of task.parameters) params[range.name] = range.min + position * (range.max - range.min);
    const problem = check.call('generateFromParams()', () => task.generateFromParams!(rng, params));
    for (const range of task.parameters) {
      const value = problem.params[range.name] as number;
      check.that(
        value >= range.min && value <= range.max,
        'generateFromParams() clamps parameters into their ranges',
        () => `${range.name} = ${value} outside [${range.min}, ${range.max}]`,
      );
    }
    check.that(
      task.verify(problem, problem.solution).correct,
      'generateFromParams() problems verify their own solution',
      () => preview(problem),
    );
  }
}
