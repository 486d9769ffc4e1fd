// Small hand-made problems for the reward tests (not generated, so the numbers stay readable).
import type { Problem } from '../../core/problem.ts';

/** An addition problem whose answer is `answer` (graded by the task verifier: exact `A:` line). */
export function additionProblem(answer = '5', id = 'addition-test'): Problem {
  return {
    id,
    task: 'addition',
    prompt: '2+3=\n',
    answer,
    solution: `A:${answer}`,
    category: 'addition',
    difficulty: 1,
    params: {},
  };
}

/** A free-form math problem (task not in the task registry) graded by math-answer. */
export function mathProblem(answer: string, id = 'math-test'): Problem {
  return {
    id,
    task: 'math',
    prompt: 'Compute.',
    answer,
    solution: '',
    category: 'math',
    difficulty: 0,
    params: {},
  };
}

/** A code problem graded by code-tests: `metadata` holds its tests and language (see code-tests/schema.ts). */
export function codeProblem(metadata: Record<string, unknown> | undefined, id = 'code-test'): Problem {
  return {
    id,
    task: 'code',
    prompt: '',
    answer: '',
    solution: '',
    category: 'code',
    difficulty: 1,
    params: {},
    metadata,
  };
}
