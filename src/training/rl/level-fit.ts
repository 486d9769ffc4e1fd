// Config-time checks that every level of a run fits the policy it starts from, before any model is
// loaded: a ladder that asks for a level the cold start cannot tokenize, or whose sequences do not fit its
// context, would otherwise train and evaluate on problems the policy can never solve (an 8-digit addition
// would read as "0% pass@8" for the wrong reason). Checked for each (task, difficulty) of the `tasks` mix
// (the held-out evaluation, and the pool unless a pool file is given) and for each problem of a pool file
// (named by file and line); both are errors.
// Worked solutions longer than `rollout.maxTokens` are advice, not an error (setup.ts puts it in the
// context; train.ts prints it as a warning and records an `advice` event when a new run starts, beside
// advice.ts's): a completion cut before its answer line can never be right, but short caps are also a
// legitimate way to keep a test or a smoke run fast.
// Sources of the limits: the init checkpoint's config.json (contextLength) and tokenizer.json (read
// with CharTokenizer.fromJSON, as the embedded backend does), or the fresh model's shape and the suite
// tokenizer. Tokenization is checked on the task's declared alphabet and on seeded sample problems;
// the context on the task's declared sequence bound (src/tasks/lengths.ts); maxTokens on the longest
// solution of 200 seeded samples (a lower bound on the true maximum: a rare longer solution can pass).
// A pool problem's length counts the tokenizer's ids (BOS + prompt + solution + EOS).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, DataError } from '../../core/errors.ts';
import type { Tokenizer } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { parseModelConfig } from '../../policy/model-config.ts';
import { CharTokenizer, suiteTokenizer } from '../../policy/tokenizer.ts';
import { maxSequenceLength } from '../../tasks/lengths.ts';
import { entryTask, type MixEntry } from '../../tasks/problem-mix.ts';
import type { ProblemLine } from '../../tasks/problem-set.ts';
import type { Task } from '../../tasks/task.ts';
import { resolveModelShape } from '../model-presets.ts';
import type { RlConfig } from './config.ts';

export interface PolicyLimits {
  tokenizer: Tokenizer;
  contextLength: number;
  /** Layers and width of the model (the embedded policy's sampling memory, size-limits.ts). */
  model: { layers: number; dModel: number; contextLength: number };
  /** What the limits come from, for messages ("the cold start examples/checkpoints/x"). */
  source: string;
}

const solutionSamples = 200;
const tokenizeSamples = 50;

/** The limits of the policy a run starts from: `modelPath` (resume or init) or a fresh model. */
export function policyLimits(config: RlConfig, modelPath: string | null): PolicyLimits {
  if (modelPath === null) {
    const shape = resolveModelShape(config.model!);
    return {
      tokenizer: suiteTokenizer(),
      contextLength: shape.contextLength,
      model: shape,
      source: 'the fresh model',
    };
  }
  const source = `the cold start ${config.init?.checkpoint ?? modelPath}`;
  const read = (file: string): unknown => {
    try {
      return JSON.parse(readFileSync(join(modelPath, file), 'utf8'));
    } catch (error) {
      throw new ConfigError(`${source}: cannot read ${file}: ${(error as Error).message}`);
    }
  };
  const configJson = read('config.json') as { model?: unknown };
  const model = parseModelConfig(configJson?.model, `${modelPath}/config.json`);
  return {
    tokenizer: CharTokenizer.fromJSON(read('tokenizer.json')),
    contextLength: model.contextLength,
    model,
    source,
  };
}

/** Every level of the mix tokenizes and fits the context; else ConfigError naming it. */
export function checkLevelsFit(entries: readonly MixEntry[], limits: PolicyLimits, where = 'tasks'): void {
  entries.forEach((entry, index) => {
    const task = entryTask(entry);
    for (const difficulty of entry.difficulties) {
      const level = `${where}.${index}: ${entry.task} difficulty ${difficulty}`;
      const untokenizable = firstUntokenizable(limits.tokenizer, [
        task.alphabet,
        ...samples(task, difficulty, tokenizeSamples).flatMap((p) => [p.prompt, p.solution]),
      ]);
      if (untokenizable !== null) {
        throw new ConfigError(
          `${level}: ${limits.source} cannot tokenize this level (${untokenizable}); drop the level or start from a checkpoint whose tokenizer covers the task`,
        );
      }
      const longest = maxSequenceLength(task, difficulty);
      if (longest > limits.contextLength) {
        throw new ConfigError(
          `${level}: sequences need up to ${longest} tokens (BOS + prompt + solution + EOS), more than the context of ${limits.source} (${limits.contextLength}); drop the level or start from a model with a longer context`,
        );
      }
    }
  });
}

/** Advice for each level of the mix whose worked solutions (longest of 200 samples) exceed maxTokens. */
export function levelsCutByMaxTokens(
  entries: readonly MixEntry[],
  maxTokens: number,
  where = 'tasks',
): string[] {
  const advice: string[] = [];
  entries.forEach((entry, index) => {
    for (const difficulty of entry.difficulties) {
      const longestSolution = Math.max(
        ...samples(entryTask(entry), difficulty, solutionSamples).map((p) => [...p.solution].length),
      );
      if (longestSolution > maxTokens) {
        advice.push(
          `${where}.${index}: ${entry.task} difficulty ${difficulty}: worked solutions take up to ${longestSolution} tokens, more than rollout.maxTokens (${maxTokens}), so such completions are cut before their answer line and cannot be right; raise rollout.maxTokens or drop the level`,
        );
      }
    }
  });
  return advice;
}

/** Advice when some pool problems' worked solutions exceed maxTokens (count and the first line). */
export function poolCutByMaxTokens(
  entries: readonly ProblemLine[],
  file: string,
  maxTokens: number,
): string[] {
  const cut = entries.filter((entry) => [...entry.problem.solution].length > maxTokens);
  if (cut.length === 0) return [];
  return [
    `${file}: ${cut.length} of ${entries.length} problems have worked solutions longer than rollout.maxTokens (${maxTokens}), first on line ${cut[0].line}; their completions are cut before the answer line and cannot be right`,
  ];
}

/** Every pool problem tokenizes and fits the context; else DataError naming file and line. */
export function checkPoolFits(entries: readonly ProblemLine[], file: string, limits: PolicyLimits): void {
  for (const { problem, line } of entries) {
    const where = `${file} line ${line}`;
    const untokenizable = firstUntokenizable(limits.tokenizer, [problem.prompt, problem.solution]);
    if (untokenizable !== null) {
      throw new DataError(
        `${where}: ${limits.source} cannot tokenize problem '${problem.id}' (${untokenizable})`,
      );
    }
    const length =
      2 + limits.tokenizer.encode(problem.prompt).length + limits.tokenizer.encode(problem.solution).length;
    if (length > limits.contextLength) {
      throw new DataError(
        `${where}: problem '${problem.id}' takes ${length} tokens (BOS + prompt + solution + EOS), more than the context of ${limits.source} (${limits.contextLength})`,
      );
    }
  }
}

function samples(generator: Task, difficulty: number, count: number) {
  const rng = new Rng(difficulty * 7919 + 17);
  return Array.from({ length: count }, () => generator.generate(rng, difficulty));
}

/** The tokenizer's error for the first text it cannot encode, or null. */
function firstUntokenizable(tokenizer: Tokenizer, texts: readonly string[]): string | null {
  for (const text of texts) {
    try {
      tokenizer.encode(text);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return null;
}
