// A task whose prompt shows the answer and whose worked solution explains it: the cold-start format of a
// teacher that writes explanations (RLT, src/rlt; issue 28 claim iv). With `rlt.template.target: answer`
// the RLT teacher reads `{question}{solution}\n` = the question and its answer line; a teacher pretrained
// on this task then writes the column trace that leads to that answer, closed by its own answer line
// (`rlt.template.explanationEnd: answer-line` cuts the explanation there). The trace is what the answer
// does not say: a student that reads it can copy the answer's digits from its column sums.
//
// Prompt:   `.......758+.......067\nA:825\n`   (aligned-addition's prompt, then the answer line)
// Solution: `8+7+0=15\n5+6+1=12\n7+0+1=08\nA:825`   (aligned-addition's worked solution)
//
// Every problem lies on the held-out side `aligned-addition`'s canonical split puts its operands on
// (metadata.partitionPoint, hashed under that task's name and canonical key), so a teacher pretrained here
// never explains a problem held out of an aligned-addition run with `partition: canonical`. The task has no
// canonical key of its own (its split is always that one), so `partition: canonical` is refused.
import type { Problem } from '../core/problem.ts';
import { alignedAddition, alignedAdditionCanonicalKey } from './aligned-addition.ts';
import { partitionPoint } from './held-out-partition.ts';
import { answerPrefix, problemId, sortedAlphabet, type Task } from './task.ts';

const name = 'aligned-addition-explain';

/** The aligned-addition problem with its answer line appended to the prompt. */
export function answerShown(problem: Problem): Problem {
  const prompt = `${problem.prompt}${answerPrefix}${problem.answer}\n`;
  return {
    ...problem,
    id: problemId(name, problem.difficulty, prompt),
    task: name,
    category: name,
    prompt,
    metadata: {
      ...problem.metadata,
      partitionPoint: partitionPoint(alignedAddition.name, alignedAdditionCanonicalKey(problem)),
    },
  };
}

export const alignedAdditionExplain: Task = {
  name,
  description:
    "aligned-addition with the answer line shown in the prompt and the column trace as the solution: cold starts for teachers that explain a given answer (RLT with rlt.template.target 'answer').",
  difficulty: alignedAddition.difficulty,
  alphabet: sortedAlphabet(alignedAddition.alphabet),
  parameters: alignedAddition.parameters,
  generate: (rng, difficulty) => answerShown(alignedAddition.generate(rng, difficulty)),
  generateFromParams: (rng, params) =>
    answerShown((alignedAddition.generateFromParams as NonNullable<Task['generateFromParams']>)(rng, params)),
  // aligned-addition's 10d+27, and the prompt's answer line: `A:` + at most d+1 digits + `\n`
  maxSequenceTokens: (level) => 10 * level + 27 + level + 4,
  verify: alignedAddition.verify,
  extractAnswer: alignedAddition.extractAnswer,
};
