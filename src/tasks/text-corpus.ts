// The `text-corpus` task family: problems cut from a plain-text file, so that RL can train on ordinary text
// without labels (issue 16 item 2). A problem is a prefix of the file and its gold answer the text that
// follows the cut:
//   unit 'token'   — the next word (RPT, "Reinforcement Pre-Training", Dong et al., arXiv 2506.08007: the
//                    model reasons, then predicts the next token). With a char tokenizer a token is one
//                    character, which makes the task trivial and its answer often a space; here a "token"
//                    is a whitespace-delimited word (cuts land on word starts). Reward: rewards/next-token.ts.
//   unit 'segment' — the next line (RLPT, "Reinforcement Learning on Pre-Training Data", arXiv 2509.19249:
//                    next-segment reasoning; the paper's segment is a sentence, here a line of the file,
//                    which for the shipped corpus is one sentence or one solution step). Reward:
//                    rewards/next-segment.ts; rewards/information-gain.ts (RLP) works with either unit.
// Prompt: the prefix (text from its block's start to the cut, trimmed from the left to `window`
// characters so it fits the model's context), followed by a newline unless it already ends with one.
// Solution: one recall step `>` + the prefix's last non-empty line (up to 24 characters; the task contract
// needs a step line), then `A:<target>`. Verify: exact match of the answer line (the rewards normalise).
// Difficulty selects the unit: 1 = next word (token), 2 = next line (segment; longer, so harder).
// Options (config `tasks[].options`, checked at config time by `configure`): path (default: the shipped
// examples/corpus/worked-solutions.txt, made by scripts/make-corpus.ts), window (48), blockLines (8),
// maxTarget (40). The registered task (no options) uses the defaults, lazily loaded.
// Cuts: every word start (token) or non-empty line (segment) whose prefix inside its block is non-empty;
// generate(rng, d) picks one of unit d uniformly (deterministic by seed). Held-out: by position blocks
// (text-corpus-file.ts), recorded in Problem.metadata.partitionPoint. maxSequenceTokens: the exact longest
// sequence over all cuts (one token per character).
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import {
  checkDifficulty,
  extractAnswerLine,
  makeProblem,
  sortedAlphabet,
  type Task,
  verifyExactAnswer,
} from './task.ts';
import { type Cut, type CutUnit, corpusVocabulary, cutCorpus, readCorpus } from './text-corpus-file.ts';

const name = 'text-corpus';
const difficulty = { min: 1, max: 2, meaning: 'the unit to predict: 1 next word (RPT), 2 next line (RLPT)' };
const units: readonly CutUnit[] = ['token', 'segment'];
/** problem-mix.ts heldOutFraction (not imported: problem-mix imports the registry, which imports this). */
export const heldOutFraction = 0.2;

export const defaultCorpusPath = fileURLToPath(
  new URL('../../examples/corpus/worked-solutions.txt', import.meta.url),
);

export const textCorpusOptionsSchema = z.strictObject({
  /** The plain-text file (relative to the working directory). */
  path: z.string().min(1).default(defaultCorpusPath),
  /** Longest prefix shown, in characters (trimmed from the left). */
  window: z.number().int().min(1).max(100_000).default(48),
  /** Lines per position block of the train/held-out partition. */
  blockLines: z.number().int().min(2).default(8),
  /** Longest target in characters; longer words or lines are not cut. */
  maxTarget: z.number().int().min(1).default(40),
});

export type TextCorpusOptions = z.output<typeof textCorpusOptionsSchema>;

function lastLine(prefix: string): string {
  const lines = prefix.split('\n').filter((line) => line.trim().length > 0);
  return lines[lines.length - 1].trim().slice(0, 24);
}

/** The problem of one cut. */
export function cutProblem(cut: Cut, unit: CutUnit): Problem {
  return makeProblem({
    task: name,
    difficulty: units.indexOf(unit) + 1,
    prompt: cut.prefix.endsWith('\n') ? cut.prefix : `${cut.prefix}\n`,
    answer: cut.target,
    solution: `>${lastLine(cut.prefix)}\nA:${cut.target}`,
    params: { position: cut.position, start: cut.start, line: cut.line, block: cut.block },
    metadata: { unit, continuation: cut.continuation, partitionPoint: cut.partitionPoint },
  });
}

/** A text-corpus task over one file; reads and checks the file now (ConfigError on bad input). */
export function createTextCorpusTask(options: unknown, where = `task '${name}' options`): Task {
  const parsed = parseConfig(textCorpusOptionsSchema, options ?? {}, where);
  const text = readCorpus(parsed.path, where);
  const cuts = units.map((unit) => cutCorpus(text, { ...parsed, unit }));
  if (cuts.some((list) => list.length === 0)) {
    throw new ConfigError(`${where}: ${parsed.path} gives no cuts (a block needs 2+ non-empty lines)`);
  }
  // Both sides of the position partition must hold cuts: else training has nothing or eval is empty.
  const heldOut = cuts[1].filter((cut) => cut.partitionPoint < heldOutFraction).length;
  if (heldOut === 0 || heldOut === cuts[1].length) {
    throw new ConfigError(
      `${where}: ${parsed.path} puts every line cut on the ${heldOut === 0 ? 'training' : 'held-out'} side of the ${heldOutFraction * 100}% held-out partition by position (blocks of ${parsed.blockLines} lines); give a longer corpus or a smaller blockLines`,
    );
  }
  // Exact (attained) longest [BOS] + prompt + solution + [EOS] per unit, over every cut (one char = one token).
  const longest = cuts.map((list) =>
    list.reduce((most, cut) => {
      const problem = cutProblem(cut, 'token');
      return Math.max(most, problem.prompt.length + problem.solution.length + 2);
    }, 0),
  );
  return {
    ...textCorpusShape,
    alphabet: sortedAlphabet(text, '>A:\n'),
    maxSequenceTokens: (level) => longest[checkDifficulty(name, difficulty, level) - 1],
    generate(rng, level) {
      checkDifficulty(name, difficulty, level);
      const list = cuts[level - 1];
      return cutProblem(list[rng.int(0, list.length - 1)], units[level - 1]);
    },
  };
}

const textCorpusShape = {
  name,
  description: 'Predict the next word or line of a plain-text file from the text before it.',
  difficulty,
  verify: verifyExactAnswer,
  extractAnswer: extractAnswerLine,
  configure: (options: Record<string, unknown>, where: string) => createTextCorpusTask(options, where),
};

let shipped: Task | null = null;

/** The registered task: the shipped corpus with default options (loaded on first use); `configure` for others. */
export const textCorpus: Task = {
  ...textCorpusShape,
  alphabet: sortedAlphabet(...corpusVocabulary),
  maxSequenceTokens(level) {
    shipped ??= createTextCorpusTask({});
    return shipped.maxSequenceTokens?.(level) ?? 0;
  },
  generate(rng, level) {
    shipped ??= createTextCorpusTask({});
    return shipped.generate(rng, level);
  },
};
