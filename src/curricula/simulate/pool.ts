// The simulated problem pool: `perLevel` problems for every category × difficulty level, with the fields
// every selector needs — numeric params (ALP-GMM), a multi-line worked solution with difficulty + 2
// steps (reverse), templated prompt text (target-relevance) — and a held-out set of the same shape.
import type { Problem } from '../../core/problem.ts';
import type { LearnerSpec } from './learner.ts';

export function simulatedProblem(
  category: string,
  categoryIndex: number,
  level: number,
  item: string,
): Problem {
  const steps = Array.from(
    { length: level + 2 },
    (_, step) => `step ${step + 1} of the ${category} derivation`,
  );
  return {
    id: `${category}-L${level}-${item}`,
    task: category,
    category,
    difficulty: level,
    prompt: `[${category}] level ${level} exercise ${item}: solve this ${category} problem in ${level + 2} steps.`,
    answer: '42',
    solution: [...steps, 'The answer is 42.'].join('\n'),
    params: { categoryIndex, level },
  };
}

export function simulatedPool(learner: LearnerSpec, perLevel: number): Problem[] {
  const pool: Problem[] = [];
  learner.categories.forEach((category, categoryIndex) => {
    for (let level = 0; level < learner.levels; level++) {
      for (let item = 0; item < perLevel; item++)
        pool.push(simulatedProblem(category.name, categoryIndex, level, String(item)));
    }
  });
  return pool;
}

/** One held-out problem per non-noise category × level (the targets of target-relevance). */
export function heldOutProblems(learner: LearnerSpec): Problem[] {
  const problems: Problem[] = [];
  learner.categories.forEach((category, categoryIndex) => {
    if (category.kind === 'noise') return;
    for (let level = 0; level < learner.levels; level++) {
      problems.push(simulatedProblem(category.name, categoryIndex, level, `test-${level}`));
    }
  });
  return problems;
}
