// `addition-unanswerable`: addition problems with a digit of an operand missing (`?`), so the sum cannot be
// known, for training and measuring honest refusal on a task the embedded models can learn (digest ¶25,
// "The Hallucination Tax of Reinforcement Finetuning", Song et al., arXiv 2505.13988). Mix it with
// `addition` in `tasks:` (its weight is the unanswerable share); each problem carries
// metadata.unanswerable = true, so the refusal-aware reward and the eval's refusal metrics apply.
//
// Prompt:   `0372+51?8\n`   (an addition prompt, padded as `addition` pads, one digit replaced by `?`)
// Solution: `digit missing\nA:unanswerable`   (verify: correct iff the answer is the refusal)
// Difficulty: digits of the longer operand (as `addition`), 1..12.
// Why this and not only countdown-unanswerable: the tiny cold starts cannot solve countdown (0% pass@1
// after the 1,200-step supervised run of examples/countdown-refusal-pretrain.yaml), so RL there has no
// signal; addition is solved well up to 6 digits. Deviation from SUM: SUM removes a key fact from a real
// problem with a model; here the removed fact is one digit, and it is marked, so detecting it is easy: what
// the study measures is whether RL keeps the refusal, not whether the model can find the gap.
import type { Problem, Verdict } from '../core/problem.ts';
import { addition } from './addition.ts';
import { checkDifficulty, extractAnswerLine, makeProblem, sortedAlphabet, type Task } from './task.ts';
import { refusalAnswer, refusalVerdict } from './unanswerable-countdown.ts';

const name = 'addition-unanswerable';
const missing = '?';
const step = 'digit missing';

function verifyRefusal(_problem: Problem, completion: string): Verdict {
  return refusalVerdict(completion, () => 'a digit of an operand is missing');
}

export const unanswerableAddition: Task = {
  labelAnswers: true,
  name,
  description: 'Addition with one operand digit missing (?): the right answer is the refusal A:unanswerable.',
  difficulty: addition.difficulty,
  alphabet: sortedAlphabet('0123456789', '+\n', missing, step, 'A:', refusalAnswer),
  generate(rng, level) {
    checkDifficulty(name, addition.difficulty, level);
    const source = addition.generate(rng, level);
    const digits = source.prompt.length - 2; // `a+b\n`: every character but `+` and the newline
    let index = rng.int(0, digits - 1);
    if (index >= source.prompt.indexOf('+')) index += 1;
    const prompt = `${source.prompt.slice(0, index)}${missing}${source.prompt.slice(index + 1)}`;
    return makeProblem({
      task: name,
      difficulty: level,
      prompt,
      answer: refusalAnswer,
      solution: `${step}\nA:${refusalAnswer}`,
      params: { digits: level },
      metadata: { unanswerable: true },
    });
  },
  // BOS + prompt (2d + 2) + `digit missing` (13) + newline + `A:unanswerable` (14) + EOS.
  maxSequenceTokens: (level) => 1 + 2 * level + 2 + 13 + 1 + 14 + 1,
  verify: verifyRefusal,
  extractAnswer: extractAnswerLine,
};
