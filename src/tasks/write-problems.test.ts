// write-problems: its problems are self-play generator prompts whose worked solution is a fresh, parseable
// statement outside the held-out partition; verify accepts exactly a parseable first line that is not a
// (trivial variant of a) prompt example; bad options fail at config time.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { generatorPrompt } from '../selfplay/round.ts';
import { addition } from './addition.ts';
import { partitionPoint } from './generate-set.ts';
import { tasks } from './index.ts';
import { ProblemMix, validateMix } from './problem-mix.ts';
import { createWriteProblemsTask } from './write-problems.ts';

const writer = tasks.get('write-problems');

describe('write-problems', () => {
  it('writes the self-play generator format: example prompts, then one new statement of that difficulty', () => {
    const rng = new Rng(7);
    for (let level = 1; level <= 8; level++) {
      const problem = writer.generate(rng, level);
      const lines = problem.prompt.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(3);
      // The prompt is exactly what round.ts builds from pool problems with these prompts.
      const pool = lines.map((line) => addition.parseProblem?.(line));
      const examples = pool.map((parsed) => (parsed?.ok ? parsed.problem : null));
      expect(examples.every((example) => example !== null && example.difficulty === level)).toBe(true);
      const entry = {
        task: addition,
        examples: examples.filter((e) => e !== null),
        heldOut: new Set<string>(),
      };
      expect(generatorPrompt(entry, 3, new Rng(1)).split('\n').sort()).toEqual(
        problem.prompt.split('\n').sort(),
      );
      const [statement, answerLine] = problem.solution.split('\n');
      expect(answerLine).toBe(`A:${statement}`);
      const parsed = addition.parseProblem?.(statement);
      expect(parsed?.ok && parsed.problem.difficulty).toBe(level);
      expect(writer.verify(problem, problem.solution)).toEqual({ correct: true, extracted: statement });
      // Never a held-out statement or example (the default 20% partition).
      for (const line of [...lines, statement]) {
        expect(partitionPoint('addition', `${line}\n`)).toBeGreaterThanOrEqual(0.2);
      }
    }
  });

  it('rejects garbage, a copy of an example (also swapped or zero-padded), and accepts any other statement', () => {
    const problem = writer.generate(new Rng(3), 4);
    const [first] = problem.prompt.split('\n');
    const [left, right] = first.split('+');
    expect(writer.verify(problem, `${first}\nA:x`)).toMatchObject({
      correct: false,
      reason: 'copies one of the examples',
    });
    expect(writer.verify(problem, `${right}+${left}`)).toMatchObject({ correct: false });
    expect(writer.verify(problem, `0${left}+${right}`)).toMatchObject({ correct: false });
    expect(writer.verify(problem, '12+')).toMatchObject({
      correct: false,
      reason: expect.stringMatching(/^unparsable/),
    });
    expect(writer.verify(problem, '')).toMatchObject({ correct: false });
    expect(writer.verify(problem, 'A:1234+5678')).toMatchObject({ correct: false });
    expect(writer.verify(problem, '1234567890123+1\n')).toMatchObject({
      correct: false,
      reason: expect.stringMatching(/^out-of-grammar/),
    });
    expect(writer.verify(problem, '9+9\nA:18')).toEqual({ correct: true, extracted: '9+9' });
  });

  it('writes countdown problems when configured, and a parser that throws costs only the verdict', () => {
    const countdownWriter = createWriteProblemsTask({ task: 'countdown', examples: 2 }, (name) =>
      tasks.get(name),
    );
    const problem = countdownWriter.generate(new Rng(5), 3);
    expect(problem.prompt.split('\n')).toHaveLength(3);
    expect(countdownWriter.verify(problem, problem.solution).correct).toBe(true);
    const throwing = createWriteProblemsTask({}, () => ({
      ...addition,
      parseProblem: () => {
        throw new Error('boom');
      },
    }));
    expect(throwing.verify(problem, '1+2')).toMatchObject({
      correct: false,
      reason: expect.stringContaining('boom'),
    });
  });

  it('refuses bad options at config time, through the training config path', () => {
    const resolve = (name: string) => tasks.get(name);
    expect(() => createWriteProblemsTask({ task: 'string-compose' }, resolve)).toThrow(/cannot be written/);
    expect(() => createWriteProblemsTask({ task: 'write-problems' }, resolve)).toThrow(/itself/);
    expect(() => createWriteProblemsTask({ examples: 0 }, resolve)).toThrow(/examples/);
    expect(() => createWriteProblemsTask({ exmples: 2 }, resolve)).toThrow(/exmples/);
    expect(() => createWriteProblemsTask({ task: 'no-such' }, resolve)).toThrow(/no-such/);
    const entry = { task: 'write-problems', difficulties: [3], weight: 1 };
    expect(() => validateMix([{ ...entry, options: { task: 'modular-chain' } }], 'tasks')).toThrow(
      /tasks\.0 write-problems options: task modular-chain cannot be written/,
    );
    const pool = new ProblemMix([{ ...entry, options: { task: 'countdown' } }]).pool(4, new Rng(2));
    expect(
      pool.every((problem) => problem.task === 'write-problems' && problem.params.of === 'countdown'),
    ).toBe(true);
  });
});
