// The training pool of `curricula train` read from a JSONL problem set (config `pool.file`) instead of
// drawn from the `tasks` mix. Lines are parsed by src/tasks/problem-set.ts with `difficulty` optional
// (a pool of problems without levels is fine for selectors whose arms are tasks or categories; the
// selectors' own setup checks then refuse one that needs a difficulty, e.g. dump's default task ×
// difficulty arms). Before any model is loaded, a pool is refused with `file line N:` when its difficulty
// metadata is inconsistent:
//   - some problems carry a difficulty and others do not (the first line that breaks the pattern is
//     named, with the line that set it);
//   - a difficulty outside the task's declared range;
//   - an id in the generators' form `<task>-<difficulty>-<12 hex>` whose difficulty differs from the
//     field (a hand-edited level);
//   - the same task and prompt twice (with different levels: "inconsistent"; otherwise a duplicate).
// A pool problem whose prompt is one of the run's held-out evaluation problems is refused as well
// (the evaluation would measure memorisation). Deviation from the drawn pool: `poolSize` is not used;
// the pool is the whole file, in file order.
// A run records the file's sha256 (run event `pool-file`) and `--resume` refuses a file that changed since,
// since the selector's saved state and the replayed steps assume the same pool.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, DataError } from '../../core/errors.ts';
import type { Problem } from '../../core/problem.ts';
import { tasks } from '../../tasks/index.ts';
import { type ProblemLine, parseProblemSetLines } from '../../tasks/problem-set.ts';

export const poolBlockSchema = z.strictObject({
  /** JSONL problem set (src/tasks/problem-set.ts fields; `difficulty` may be left out on every line). */
  file: z.string().min(1),
});

export type PoolBlock = z.output<typeof poolBlockSchema>;

const generatedId = /^(.+)-(\d+)-[0-9a-f]{12}$/;

/** Reads and checks a pool file; `heldOut` are the run's evaluation problems (none may be in the pool). */
export function readPoolFile(file: string, heldOut: readonly Problem[] = []): ProblemLine[] {
  let text: string;
  try {
    text = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new ConfigError(`pool.file: cannot read ${file}: ${(error as Error).message}`);
  }
  // A UTF-8 byte-order mark is not content (JSON.parse would refuse the first line, quoting it).
  text = text.replace(/^\uFEFF+/, '');
  const entries = parseProblemSetLines(text, file, { difficulty: 'optional' });
  if (entries.length === 0) throw new ConfigError(`pool.file: ${file} holds no problems`);
  checkPoolLines(entries, file, heldOut);
  return entries;
}

/** The consistency checks of the header, on parsed lines; throws DataError naming file and line. */
export function checkPoolLines(
  entries: readonly ProblemLine[],
  file: string,
  heldOut: readonly Problem[] = [],
): void {
  const fail = (line: number, what: string): never => {
    throw new DataError(`${file} line ${line}: ${what}`);
  };
  const first = entries[0];
  const leveled = hasDifficulty(first.problem);
  const heldOutPrompts = new Set(heldOut.map((problem) => `${problem.task}\u0000${problem.prompt}`));
  const lineOfPrompt = new Map<string, { line: number; difficulty: number | undefined }>();
  for (const { problem, line } of entries) {
    if (hasDifficulty(problem) !== leveled) {
      fail(
        line,
        leveled
          ? `problem '${problem.id}' has no difficulty, but line ${first.line} has one: inconsistent difficulty metadata; give every problem a difficulty, or none`
          : `problem '${problem.id}' has difficulty ${problem.difficulty}, but line ${first.line} has none: inconsistent difficulty metadata; give every problem a difficulty, or none`,
      );
    }
    if (leveled) {
      const range = tasks.get(problem.task).difficulty;
      if (problem.difficulty < range.min || problem.difficulty > range.max) {
        fail(
          line,
          `${problem.task} difficulty ${problem.difficulty} is outside [${range.min}, ${range.max}] (${range.meaning})`,
        );
      }
      const match = generatedId.exec(problem.id);
      if (match && match[1] === problem.task && Number(match[2]) !== problem.difficulty) {
        fail(
          line,
          `inconsistent difficulty: id '${problem.id}' says difficulty ${match[2]}, the difficulty field says ${problem.difficulty}`,
        );
      }
    }
    const key = `${problem.task}\u0000${problem.prompt}`;
    const earlier = lineOfPrompt.get(key);
    if (earlier !== undefined) {
      fail(
        line,
        earlier.difficulty !== problem.difficulty
          ? `inconsistent difficulty: the same ${problem.task} prompt is difficulty ${earlier.difficulty} on line ${earlier.line} and ${problem.difficulty} here`
          : `duplicate prompt (first on line ${earlier.line})`,
      );
    }
    lineOfPrompt.set(key, { line, difficulty: problem.difficulty });
    if (heldOutPrompts.has(key)) {
      fail(
        line,
        `problem '${problem.id}' is one of the run's held-out evaluation problems (tasks × eval.problemsPerDifficulty); remove it from the pool`,
      );
    }
  }
}

function hasDifficulty(problem: Problem): boolean {
  return (problem as { difficulty?: number }).difficulty !== undefined;
}

/** What a run records about its pool file (run event `pool-file`). */
export interface PoolFileRecord {
  file: string;
  sha256: string;
}

export function poolFileRecord(file: string): PoolFileRecord {
  return {
    file,
    sha256: createHash('sha256')
      .update(readFileSync(resolve(file)))
      .digest('hex'),
  };
}

/** Refuses a resume whose pool file differs from the one the run started with. */
export function checkPoolUnchanged(recorded: unknown, current: PoolFileRecord): void {
  const sha256 = (recorded as { sha256?: unknown } | undefined)?.sha256;
  if (typeof sha256 === 'string' && sha256 !== current.sha256) {
    throw new ConfigError(
      `pool.file: ${current.file} changed since the run started (sha256 ${sha256.slice(0, 12)}… then, ${current.sha256.slice(0, 12)}… now); restore it, or start a new run`,
    );
  }
}
