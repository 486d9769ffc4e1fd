// A chain of k arithmetic steps modulo p, evaluated left to right with a reduction after every step
// (no operator precedence), with every intermediate value in the worked solution.
//
// Prompt:   `mod 7:3;+5;*4;-2\n`          (start value 3, then the steps in order)
// Solution: `3+5=1\n1*4=4\n4-2=2\nA:2`    (each line: previous value, step, result reduced into [0, p))
// Difficulty k: the number of steps (1..8). `generate` draws p from the primes 5, 7, 11, 13 (so the
// multiplication table stays learnable for a tiny model); `generateFromParams` takes any modulus 2..97.
// Operands are 1..p-1, the start value 0..p-1, operations + - *.
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import {
  checkDifficulty,
  extractAnswerLine,
  knob,
  makeProblem,
  sortedAlphabet,
  type Task,
  verifyExactAnswer,
} from './task.ts';

const name = 'modular-chain';
const difficulty = { min: 1, max: 8, meaning: 'number of arithmetic steps' };
const defaultModuli = [5, 7, 11, 13];
const minModulus = 2;
const maxModulus = 97;
const operations = ['+', '-', '*'] as const;
type Operation = (typeof operations)[number];

export interface ChainStep {
  operation: Operation;
  operand: number;
}

function applyStep(value: number, step: ChainStep, modulus: number): number {
  const raw =
    step.operation === '+'
      ? value + step.operand
      : step.operation === '-'
        ? value - step.operand
        : value * step.operand;
  return ((raw % modulus) + modulus) % modulus;
}

/** A problem from a start value, the steps, and the modulus. */
export function modularChainProblem(start: number, steps: readonly ChainStep[], modulus: number): Problem {
  const lines: string[] = [];
  let value = start;
  for (const step of steps) {
    const next = applyStep(value, step, modulus);
    lines.push(`${value}${step.operation}${step.operand}=${next}`);
    value = next;
  }
  const stepsText = steps.map((step) => `${step.operation}${step.operand}`).join(';');
  return makeProblem({
    task: name,
    difficulty: steps.length,
    prompt: `mod ${modulus}:${start};${stepsText}\n`,
    answer: String(value),
    solution: `${lines.join('\n')}\nA:${value}`,
    params: { steps: steps.length, modulus },
  });
}

function generateFromKnobs(rng: Rng, stepCount: number, modulus: number): Problem {
  const start = rng.int(0, modulus - 1);
  const steps: ChainStep[] = [];
  for (let i = 0; i < stepCount; i++) {
    steps.push({ operation: rng.pick(operations), operand: rng.int(1, Math.max(1, modulus - 1)) });
  }
  return modularChainProblem(start, steps, modulus);
}

export const modularChain: Task = {
  name,
  description: 'Evaluate a chain of + - * steps modulo p, left to right, reducing after each step.',
  difficulty,
  alphabet: sortedAlphabet('0123456789', '+-*=;:\n', 'mod ', 'A'),
  parameters: [
    { name: 'steps', min: difficulty.min, max: difficulty.max, integer: true },
    { name: 'modulus', min: minModulus, max: maxModulus, integer: true },
  ],
  generate(rng, level) {
    checkDifficulty(name, difficulty, level);
    return generateFromKnobs(rng, level, rng.pick(defaultModuli));
  },
  generateFromParams(rng, params) {
    return generateFromKnobs(
      rng,
      knob(params.steps, difficulty.min, difficulty.max, difficulty.min),
      knob(params.modulus, minModulus, maxModulus, 7),
    );
  },
  // with a two-digit modulus: prompt ≤ 10+4k, solution ≤ k lines of 8 (`12*12=12`), k-1 newlines,
  // `\nA:` + 2, BOS and EOS: 13k+16.
  maxSequenceTokens: (level) => 13 * level + 16,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
};
