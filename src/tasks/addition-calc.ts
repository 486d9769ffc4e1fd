// Addition with a calculator (issue 30, Tool-Zero's setting on the ladder): the prompts of `addition`,
// and a worked solution that calls the calculator tool in the compact tag syntax of the embedded model
// (src/environments/tag-tools.ts) instead of adding column by column:
//
// Prompt:   `758+067\n`                                   (addition's prompt)
// Solution: `<calc>758+067</calc><out>825</out>\nA:825`   (the call, the tool's output, the answer line)
//
// The `<out>…</out>` part is what the environment writes at sampling time: it is the solution's one
// observation span, masked from the supervised loss (format.ts solutionDatum), so a cold start trained on
// these traces learns to call the tool and to read its output, never to predict the output itself.
// Problems sit on the held-out side `addition` puts the same prompt on (metadata.partitionPoint), so a
// cold start's tool traces never show a held-out addition problem. Grading is addition's (the last `A:`
// line); canonical partitioning is not offered (it would hash under this task's name).
import type { Problem } from '../core/problem.ts';
import { additionProblem, operandGenerators } from './addition.ts';
import { partitionPoint } from './held-out-partition.ts';
import { extractAnswerLine, problemId, sortedAlphabet, type Task, verifyExactAnswer } from './task.ts';

const name = 'addition-calc';
const maxDigits = 12;
const difficulty = { min: 1, max: maxDigits, meaning: 'digits of the longer operand' };

/** The calculator call, its output and the answer line for an addition prompt `a+b\n` with sum `sum`. */
export function calculatorTrace(
  expression: string,
  sum: string,
): { solution: string; output: [number, number] } {
  const call = `<calc>${expression}</calc>`;
  const output = `<out>${sum}</out>`;
  return { solution: `${call}${output}\nA:${sum}`, output: [call.length, call.length + output.length] };
}

/** The addition problem of two operands, with the calculator trace as its worked solution. */
export function additionCalcProblem(left: string, right: string): Problem {
  const plain = additionProblem(left, right);
  const { solution, output } = calculatorTrace(plain.prompt.trim(), plain.answer);
  return {
    ...plain,
    id: problemId(name, plain.difficulty, plain.prompt),
    task: name,
    category: name,
    solution,
    observationSpans: [output],
    metadata: { ...plain.metadata, partitionPoint: partitionPoint('addition', plain.prompt) },
  };
}

export const additionCalc: Task = {
  name,
  description:
    "Addition's problems with a calculator-call worked solution (<calc>a+b</calc><out>sum</out>, the output masked from the loss): cold starts for tool use.",
  difficulty,
  alphabet: sortedAlphabet('0123456789', '+=\n', 'A:', '<>/calcout'),
  parameters: [
    { name: 'digitsA', min: 1, max: maxDigits, integer: true },
    { name: 'digitsB', min: 1, max: maxDigits, integer: true },
  ],
  ...operandGenerators({ name, difficulty }, additionCalcProblem),
  // BOS + prompt 2d+2; call 6 + 2d+1 + 7; output 5 + (≤ d+1) + 6; `\nA:` 3 + (≤ d+1); EOS: 6d+34
  maxSequenceTokens: (level) => 6 * level + 34,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
};
