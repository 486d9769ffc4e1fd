// A task and a reward of your own, written against the public contracts of `curricula/tasks` and
// `curricula/rewards` (types only: the plug-ins need nothing else from the package).
// docs/library.md walks through them; src/api/library.test.ts trains with them.
import type { Problem, Rng, Task, Verdict } from 'curricula/tasks';
import type { Reward, RewardInput, RewardResult } from 'curricula/rewards';

/** The last `A:` line of a completion, trimmed (null when there is none). */
function answerLine(completion: string): string | null {
  const lines = completion.split('\n').filter((line) => line.startsWith('A:'));
  const answer = lines.at(-1)?.slice(2).trim();
  return answer ? answer : null;
}

/**
 * Doubling: `37*2` → `37+37=74`, `A:74`. Difficulty = digits of the number. Every character it uses is
 * printable ASCII, which the shipped checkpoints' tokenizer covers.
 */
export const doubling: Task = {
  name: 'doubling',
  description: 'double a number by adding it to itself',
  difficulty: { min: 1, max: 4, meaning: 'digits of the number' },
  alphabet: '\n*+0123456789:=A',
  generate(rng: Rng, difficulty: number): Problem {
    const low = difficulty === 1 ? 0 : 10 ** (difficulty - 1);
    const n = rng.int(low, 10 ** difficulty - 1);
    const answer = String(2 * n);
    return {
      id: `doubling-${difficulty}-${n}`,
      task: 'doubling',
      prompt: `${n}*2\n`,
      answer,
      solution: `${n}+${n}=${answer}\nA:${answer}`,
      category: 'doubling',
      difficulty,
      params: { n },
    };
  },
  verify(problem: Problem, completion: string): Verdict {
    const extracted = answerLine(completion);
    if (extracted === null) return { correct: false, extracted, reason: 'no answer line (A:...)' };
    if (extracted !== problem.answer) return { correct: false, extracted, reason: `answer '${extracted}' is wrong` };
    return { correct: true, extracted };
  },
  extractAnswer: answerLine,
};

/** 1 for the right answer, 0.1 for an answer line with a wrong number, 0 without one. */
export const partialCredit: Reward = {
  name: 'partial-credit',
  async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
    return inputs.map(({ problem, completion }) => {
      const answer = answerLine(completion);
      if (answer === problem.answer) return { reward: 1, components: { correct: 1, answered: 1 } };
      if (answer === null) return { reward: 0, components: { correct: 0, answered: 0 }, reason: 'no answer line' };
      return { reward: 0.1, components: { correct: 0, answered: 1 }, reason: `wrong answer '${answer}'` };
    });
  },
};
