// `curricula reward check`'s library side: scores a JSONL file of hand-written cases with one registered
// reward and says how often it agrees with the expected values. One case per line:
//
//   {"gold": "\\frac12", "prediction": "… \\boxed{0.5}", "expected": 1}
//   {"problem": { …a full Problem as in problem sets… }, "prediction": "A:42", "expected": true}
//
// Fields: exactly one of `gold` (a minimal Problem with that answer; `task`, `prompt`, `id` optional,
// task default 'math') or `problem`; `prediction` (the completion); optional `expected` (number, or
// true/false for 1/0), `group` (all completions of the problem, for majority-vote), `step` (for
// schedules), `note` (ignored). Blank lines are skipped; a malformed line is a DataError with file:line.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { RewardInput } from '../core/reward.ts';
import { problemSchema } from '../tasks/problem-set.ts';
import { rewards } from './index.ts';

const caseSchema = z.strictObject({
  gold: z.string().optional(),
  problem: z.unknown().optional(),
  prediction: z.string(),
  expected: z.union([z.number(), z.boolean()]).optional(),
  task: z.string().min(1).optional(),
  prompt: z.string().optional(),
  id: z.string().min(1).optional(),
  group: z.array(z.string()).optional(),
  step: z.number().int().min(0).optional(),
  note: z.string().optional(),
});

export interface RewardCase {
  /** 1-based line number in the file. */
  line: number;
  problem: Problem;
  prediction: string;
  expected?: number;
  group?: string[];
  step?: number;
}

export interface CheckedCase {
  line: number;
  reward: number;
  reason?: string;
  components: Record<string, number>;
  expected?: number;
  /** |reward − expected| ≤ 1e-9, when `expected` is given. */
  agrees?: boolean;
  /** The reward could not grade this case (its reason says why). */
  error?: true;
}

export interface RewardCheckSummary {
  reward: string;
  count: number;
  meanReward: number;
  /** Cases that had an `expected` value, and how many of them agree. */
  withExpected: number;
  agreements: number;
  /** agreements / withExpected, or null when no case had an expected value. */
  agreement: number | null;
  /** Cases scored above their expected value: false positives when expected is 0 or 1 (a lenient judge). */
  above: number;
  /** Cases the reward could not grade (error: a judge's failed call or malformed verdict, a throw). */
  errors: number;
  seconds: number;
}

const TOLERANCE = 1e-9;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? `field '${issue.path.join('.')}': ` : ''}${issue.message}`)
    .join('; ');
}

/** Parses the JSONL text of a cases file; `file` names it in errors. */
export function parseRewardCases(text: string, file: string): RewardCase[] {
  const cases: RewardCase[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index].replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const line = index + 1;
    const fail = (what: string): never => {
      throw new DataError(`${file}:${line}: ${what}`);
    };
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      fail(`bad JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('expected a JSON object');
    const parsed = caseSchema.safeParse(value);
    if (!parsed.success) fail(describeIssues(parsed.error));
    const record = parsed.data as z.output<typeof caseSchema>;
    if ((record.gold === undefined) === (record.problem === undefined)) {
      fail("give exactly one of 'gold' (an answer) or 'problem' (a full problem object)");
    }
    let problem: Problem;
    if (record.problem !== undefined) {
      if (record.task !== undefined || record.prompt !== undefined || record.id !== undefined) {
        fail("'task', 'prompt' and 'id' go inside 'problem' when a full problem is given");
      }
      const full = problemSchema.safeParse(record.problem);
      if (!full.success) fail(`problem: ${describeIssues(full.error)}`);
      problem = full.data as Problem;
    } else {
      const task = record.task ?? 'math';
      problem = {
        id: record.id ?? `${basename(file)}:${line}`,
        task,
        prompt: record.prompt ?? '',
        answer: record.gold as string,
        solution: '',
        category: task,
        difficulty: 0,
        params: {},
      };
    }
    const entry: RewardCase = { line, problem, prediction: record.prediction };
    if (record.expected !== undefined) entry.expected = Number(record.expected);
    if (record.group !== undefined) entry.group = record.group;
    if (record.step !== undefined) entry.step = record.step;
    cases.push(entry);
  }
  return cases;
}

/** Reads and parses a cases file (DataError when it cannot be read). */
export async function loadRewardCases(path: string): Promise<RewardCase[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new DataError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  return parseRewardCases(text, path);
}

/** Scores every case with the named reward (one batch) and summarises agreement with `expected`. */
export async function checkRewardCases(
  rewardName: string,
  options: unknown,
  cases: readonly RewardCase[],
  { stateDir }: { stateDir?: string } = {},
): Promise<{ results: CheckedCase[]; summary: RewardCheckSummary }> {
  const reward = rewards.get(rewardName)(options ?? {});
  // a judge keeps its verdict cache there, so a repeated check asks nothing twice
  if (stateDir !== undefined) reward.useRunDirectory?.(stateDir);
  const started = performance.now();
  let scored: Awaited<ReturnType<typeof reward.score>>;
  try {
    const inputs = cases.map((entry): RewardInput => {
      const input: RewardInput = { problem: entry.problem, completion: entry.prediction };
      if (entry.group !== undefined) input.group = entry.group;
      if (entry.step !== undefined) input.step = entry.step;
      return input;
    });
    scored = cases.length > 0 ? await reward.score(inputs) : [];
  } finally {
    await reward.close?.();
  }
  const seconds = (performance.now() - started) / 1000;
  const results = cases.map((entry, i): CheckedCase => {
    const { reward: value, reason, components, error } = scored[i];
    const result: CheckedCase = { line: entry.line, reward: value, components };
    if (error) result.error = true;
    if (reason !== undefined) result.reason = reason;
    if (entry.expected !== undefined) {
      result.expected = entry.expected;
      result.agrees = Math.abs(value - entry.expected) <= TOLERANCE;
    }
    return result;
  });
  const withExpected = results.filter((result) => result.agrees !== undefined).length;
  const agreements = results.filter((result) => result.agrees === true).length;
  const total = results.reduce((sum, result) => sum + result.reward, 0);
  return {
    results,
    summary: {
      reward: rewardName,
      count: results.length,
      meanReward: results.length > 0 ? total / results.length : Number.NaN,
      withExpected,
      agreements,
      agreement: withExpected > 0 ? agreements / withExpected : null,
      above: results.filter(
        (result) => result.expected !== undefined && result.reward > result.expected + TOLERANCE,
      ).length,
      errors: results.filter((result) => result.error).length,
      seconds,
    },
  };
}

const formatNumber = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(4));

/** One human-readable line per case. */
export function formatCheckedCase(file: string, result: CheckedCase): string {
  const parts = [`${file}:${result.line}`, `reward ${formatNumber(result.reward)}`];
  if (result.expected !== undefined) {
    parts.push(`expected ${formatNumber(result.expected)} ${result.agrees ? 'ok' : 'DISAGREES'}`);
  }
  const components = Object.entries(result.components)
    .map(([key, value]) => `${key}=${formatNumber(value)}`)
    .join(' ');
  if (components !== '') parts.push(components);
  if (result.reason !== undefined) parts.push(`(${result.reason})`);
  return parts.join('  ');
}

/** The summary line. */
export function formatCheckSummary(summary: RewardCheckSummary): string {
  const agreement =
    summary.agreement === null
      ? 'no expected values'
      : `agreement ${summary.agreements}/${summary.withExpected} (${(summary.agreement * 100).toFixed(1)}%)`;
  const mean = Number.isNaN(summary.meanReward) ? '-' : summary.meanReward.toFixed(4);
  const above = summary.withExpected > 0 ? `  ${summary.above} above expected` : '';
  const errors = summary.errors > 0 ? `  ${summary.errors} not graded` : '';
  return `${summary.reward}: ${summary.count} cases  mean reward ${mean}  ${agreement}${above}${errors}  ${summary.seconds.toFixed(2)} s`;
}
