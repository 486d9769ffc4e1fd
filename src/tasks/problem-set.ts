// Problem sets as JSONL files: one Problem per line with the fields of src/core/problem.ts. Loading
// validates every line with zod and fails with a DataError naming the file, the line number and what is
// wrong (bad JSON, missing field, wrong type, unknown task, duplicate id). Blank lines are skipped.
// `difficulty: 'optional'` (training pools, src/training/rl/pool-file.ts) accepts problems without a
// difficulty; they are returned without the field (the Problem type says number, so selectors that need
// one check it at run setup, src/curricula/shared.ts requireDifficulty). `parseProblemSetLines` also
// returns each problem's line number, for callers that check more and must name the line.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { tasks } from './index.ts';

export const problemSchema = z.strictObject({
  id: z.string().min(1),
  task: z.string().min(1),
  prompt: z.string(),
  answer: z.string(),
  solution: z.string(),
  category: z.string(),
  difficulty: z.number().int(),
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const optionalDifficultySchema = problemSchema.extend({ difficulty: z.number().int().optional() });

const requiredFields = ['id', 'task', 'prompt', 'answer', 'solution', 'category', 'difficulty', 'params'];

export interface ParseOptions {
  /** Which task names are known (default: the task registry). */
  knownTasks?: { has(name: string): boolean; names(): string[] };
  /** 'optional': a line may leave out `difficulty` (default 'required'). */
  difficulty?: 'required' | 'optional';
}

/** One parsed problem and the 1-based line it came from. */
export interface ProblemLine {
  problem: Problem;
  line: number;
}

/** Parses JSONL text; `file` names the source in error messages. */
export function parseProblemSet(text: string, file: string, options: ParseOptions = {}): Problem[] {
  return parseProblemSetLines(text, file, options).map((entry) => entry.problem);
}

/** parseProblemSet, keeping each problem's line number. */
export function parseProblemSetLines(text: string, file: string, options: ParseOptions = {}): ProblemLine[] {
  const knownTasks = options.knownTasks ?? tasks;
  const optional = options.difficulty === 'optional';
  const schema = optional ? optionalDifficultySchema : problemSchema;
  const required = optional ? requiredFields.filter((field) => field !== 'difficulty') : requiredFields;
  const problems: ProblemLine[] = [];
  const firstLineOfId = new Map<string, number>();
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].replace(/\r$/, '');
    if (line.trim() === '') continue;
    const lineNumber = index + 1;
    const fail = (what: string): never => {
      throw new DataError(`${file} line ${lineNumber}: ${what}`);
    };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      fail(`bad JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('expected a JSON object');
    const record = value as Record<string, unknown>;
    const missing = required.filter((field) => record[field] === undefined);
    if (missing.length > 0)
      fail(`missing field${missing.length > 1 ? 's' : ''} ${missing.map((f) => `'${f}'`).join(', ')}`);
    const parsed = schema.safeParse(record);
    if (!parsed.success) fail(describeIssues(parsed.error));
    const problem = parsed.data as Problem;
    if (!knownTasks.has(problem.task)) {
      fail(`unknown task '${problem.task}'; known: ${knownTasks.names().join(', ')}`);
    }
    const firstLine = firstLineOfId.get(problem.id);
    if (firstLine !== undefined) fail(`duplicate id '${problem.id}' (first on line ${firstLine})`);
    firstLineOfId.set(problem.id, lineNumber);
    problems.push({ problem, line: lineNumber });
  }
  return problems;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? `field '${issue.path.join('.')}': ` : '';
      return `${field}${issue.message}`;
    })
    .join('; ');
}

/** One JSON object per line, fields in the canonical order, ending with a newline. */
export function formatProblemSet(problems: readonly Problem[]): string {
  return problems
    .map((problem) => {
      const ordered: Problem = {
        id: problem.id,
        task: problem.task,
        prompt: problem.prompt,
        answer: problem.answer,
        solution: problem.solution,
        category: problem.category,
        difficulty: problem.difficulty,
        params: problem.params,
      };
      if (problem.metadata !== undefined) ordered.metadata = problem.metadata;
      return `${JSON.stringify(ordered)}\n`;
    })
    .join('');
}

export async function readProblemSet(file: string, options: ParseOptions = {}): Promise<Problem[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new DataError(`cannot read problem set ${file}: ${(error as Error).message}`);
  }
  return parseProblemSet(text, file, options);
}

export async function writeProblemSet(file: string, problems: readonly Problem[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, formatProblemSet(problems), 'utf8');
}
