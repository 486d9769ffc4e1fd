// `curricula/tasks`: the Task and Problem contracts (a verifiable task with a difficulty knob), helpers a
// task implementation uses (problem ids, the answer-line convention), and registerTask.
import { tasks } from '../tasks/index.ts';

export type { ParamValue, Problem, Verdict } from '../core/problem.ts';
export { Rng } from '../core/rng.ts';
export { defineTask, type TaskExtras, type TaskPlugin } from '../tasks/define.ts';
export type { DifficultyRange, ParameterRange, Task } from '../tasks/task.ts';
export {
  answerPrefix,
  checkDifficulty,
  extractAnswerLine,
  makeProblem,
  problemId,
  sortedAlphabet,
  verifyExactAnswer,
} from '../tasks/task.ts';
export { type RegisterOptions, registerPlugin, registerTask } from './register.ts';

/** Names of the tasks registered now (built-in ones, and any a script registered), sorted. */
export function taskNames(): string[] {
  return tasks.names();
}
