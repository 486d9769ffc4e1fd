// The `write-problems` task family: practice at WRITING problems of another task, so that a cold start can
// act as the problem generator of self-play (src/selfplay, docs/self-play.md; SeRL ¶88, Tool-R0 ¶118). The
// papers start from instruction-tuned LLMs that can already write problems when asked; a tiny model
// pretrained only to solve cannot (every proposal of the shipped checkpoints is unparsable), so a cold
// start that mixes this task into its supervised data learns the generator's format.
//
// Prompt:   `examples` prompts of the inner task, each ending with a newline, exactly as a self-play
//           generator prompt is built (round.ts generatorPrompt), e.g. `004+123\n051+778\n900+012\n`
// Solution: a fresh problem statement of the inner task (its prompt without the newline), then the
//           answer line repeating it: `381+275\nA:381+275`. Self-play reads the continuation's first line.
// Verify:   correct iff the completion's first line parses as a problem of the inner task
//           (Task.parseProblem) and is not one of the prompt's own examples (by Task.canonicalKey).
// Difficulty: the inner task's range; examples and the statement are all of that difficulty.
// Held out: every inner problem used (examples and statement) is drawn outside the inner task's held-out
// hash partition at the default fraction 0.2 (generate-set.ts), so the writer never practises a held-out
// statement; self-play's screen rejects held-out statements again at run time.
// Options (`tasks[].options`): task (default 'addition'; must have parseProblem and canonicalKey) and
// examples (default 3, self-play's own default `selfPlay.examples`).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Verdict } from '../core/problem.ts';
import { generateTrainingProblem } from './held-out-partition.ts';
import { checkDifficulty, extractAnswerLine, makeProblem, sortedAlphabet, type Task } from './task.ts';

const name = 'write-problems';
/** The held-out share the drawn problems avoid (problem-mix.ts heldOutFraction, the default split). */
const heldOutFraction = 0.2;

export const writeProblemsOptionsSchema = z.strictObject({
  /** The task whose problems are written (a registered task with parseProblem and canonicalKey). */
  task: z.string().min(1).default('addition'),
  /** Example prompts before the slot (self-play's `examples`). */
  examples: z.number().int().min(1).max(16).default(3),
});

/** The first line of a completion, trimmed of a carriage return. */
function firstLine(completion: string): string {
  const end = completion.indexOf('\n');
  return (end < 0 ? completion : completion.slice(0, end)).replace(/\r$/, '');
}

/**
 * The task of writing `inner`'s problems. `resolve` looks a task up by name (the registry; passed in
 * because the registry imports this file). Throws ConfigError on bad options or an inner task without
 * parseProblem/canonicalKey.
 */
export function createWriteProblemsTask(
  options: unknown,
  resolve: (task: string) => Task,
  where = `task '${name}' options`,
): Task {
  const parsed = parseConfig(writeProblemsOptionsSchema, options ?? {}, where);
  if (parsed.task === name) throw new ConfigError(`${where}: task cannot be ${name} itself`);
  const inner = resolve(parsed.task);
  const { parseProblem, canonicalKey } = inner;
  if (parseProblem === undefined || canonicalKey === undefined) {
    throw new ConfigError(
      `${where}: task ${inner.name} cannot be written (it has no parseProblem/canonicalKey); tasks that can: addition, countdown`,
    );
  }
  /** Canonical keys of the prompt's example lines (a line that does not parse is skipped). */
  const exampleKeys = (prompt: string): Set<string> => {
    const keys = new Set<string>();
    for (const line of prompt.split('\n')) {
      const example = line.length > 0 ? parseProblem(line) : null;
      if (example?.ok) keys.add(canonicalKey(example.problem));
    }
    return keys;
  };
  return {
    name,
    description: `Write a new ${inner.name} problem after ${parsed.examples} examples (a self-play generator's cold-start format).`,
    difficulty: inner.difficulty,
    alphabet: sortedAlphabet(inner.alphabet, 'A:\n'),
    extractAnswer: extractAnswerLine,
    configure: (next: Record<string, unknown>, nextWhere: string) =>
      createWriteProblemsTask(next, resolve, nextWhere),
    generate(rng, level) {
      checkDifficulty(name, inner.difficulty, level);
      const examples = Array.from({ length: parsed.examples }, () =>
        generateTrainingProblem(inner, rng, level, heldOutFraction),
      );
      const keys = new Set(examples.map((example) => canonicalKey(example)));
      let target = generateTrainingProblem(inner, rng, level, heldOutFraction);
      for (let attempt = 0; keys.has(canonicalKey(target)) && attempt < 100; attempt++) {
        target = generateTrainingProblem(inner, rng, level, heldOutFraction);
      }
      const statement = target.prompt.replace(/\n$/, '');
      return makeProblem({
        task: name,
        difficulty: level,
        prompt: examples.map((example) => example.prompt).join(''),
        answer: statement,
        solution: `${statement}\nA:${statement}`,
        params: { of: inner.name },
      });
    },
    verify(problem, completion): Verdict {
      if (typeof completion !== 'string') return { correct: false, extracted: null, reason: 'no completion' };
      const statement = firstLine(completion);
      let parsedProblem: ReturnType<typeof parseProblem>;
      try {
        parsedProblem = parseProblem(statement);
      } catch (error) {
        return { correct: false, extracted: statement, reason: `parser failed: ${String(error)}` };
      }
      if (!parsedProblem.ok) {
        return {
          correct: false,
          extracted: statement,
          reason: `${parsedProblem.reason}: ${parsedProblem.detail}`,
        };
      }
      if (exampleKeys(problem.prompt).has(canonicalKey(parsedProblem.problem))) {
        return { correct: false, extracted: statement, reason: 'copies one of the examples' };
      }
      return { correct: true, extracted: statement };
    },
  };
}
