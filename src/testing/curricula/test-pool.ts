// Small hand-made pools for the selector tests.
import type { Problem } from '../../core/problem.ts';

export function testProblem(id: string, fields: Partial<Problem> = {}): Problem {
  return {
    id,
    task: 'addition',
    prompt: `problem ${id}`,
    answer: '0',
    solution: 'step one\nstep two\nanswer 0',
    category: 'addition',
    difficulty: 0,
    params: { digits: 1 },
    ...fields,
  };
}

/** Outcome with the given rewards and GRPO-like advantages supplied explicitly. */
export function outcome(problem: Problem, rewards: number[], advantages: number[] = rewards.map(() => 0)) {
  return { problem, rewards, advantages };
}
