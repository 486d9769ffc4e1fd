// `curricula eval --problem-set FILE`: every problem of a JSONL problem set is evaluated (not a generated
// held-out set), problems without a difficulty included, and `--per-problem` gives each problem's count
// of correct samples — what an experiment needs to say which problems a model solves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { heldOutProblems } from '../tasks/problem-mix.ts';
import { formatProblemSet } from '../tasks/problem-set.ts';
import { evaluateCheckpoint } from './evaluate-checkpoint.ts';

const repo = resolve(import.meta.dirname, '../..');
const checkpoint = join(repo, 'examples/checkpoints/ladder-cold');
const dir = mkdtempSync(join(tmpdir(), 'curricula-eval-set-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('evaluates exactly the problems of the set, in its order, with per-problem correct counts', async () => {
  // Easy and hard problems, so that some counts are 0 and some are > 0; the last one without a difficulty.
  const problems = heldOutProblems([{ task: 'addition', difficulties: [1, 7], weight: 1 }], 3, 5);
  const { difficulty: _dropped, ...undifficult } = problems[0];
  const set = [...problems, { ...undifficult, id: `${problems[0].id}-nodiff` }];
  const file = join(dir, 'set.jsonl');
  writeFileSync(file, formatProblemSet(set as typeof problems));
  const { readProblemSet } = await import('../tasks/problem-set.ts');
  const result = await evaluateCheckpoint({
    checkpoint,
    problems: { source: file, problems: await readProblemSet(file, { difficulty: 'optional' }) },
    perProblem: true,
    samples: 4,
    problemsPerDifficulty: 50,
    temperature: 1,
    seed: 3,
    workers: 1,
  });
  expect(result.problems).toBe(file);
  expect(result.perProblem!.map((row) => row.id)).toEqual(set.map((problem) => problem.id));
  expect(result.summary.overall.problems).toBe(set.length);
  const easy = result.perProblem!.filter((row) => row.difficulty === 1);
  const hard = result.perProblem!.filter((row) => row.difficulty === 7);
  expect(easy.every((row) => row.correct >= 1 && row.correct <= 4)).toBe(true);
  expect(hard.every((row) => row.correct === 0)).toBe(true);
  // The counts agree with the summary: pass@n of a group is the share of its problems with a success.
  for (const group of result.summary.groups) {
    const rows = result.perProblem!.filter((row) => row.difficulty === group.difficulty);
    expect(group.problems).toBe(rows.length);
    expect(group.passAt[4]).toBeCloseTo(rows.filter((row) => row.correct > 0).length / rows.length, 12);
  }
  expect(result.summary.groups.at(-1)?.difficulty).toBeUndefined();
}, 60_000);

it('the CLI refuses --problem-set with --tasks, and a malformed set names its line', () => {
  const cli = (args: string[]) =>
    spawnSync(
      process.execPath,
      [join(repo, 'bin/curricula.mjs'), 'eval', '--checkpoint', checkpoint, ...args],
      {
        encoding: 'utf8',
      },
    );
  const file = join(dir, 'bad.jsonl');
  writeFileSync(file, '{"id": "a"}\n');
  const both = cli(['--problem-set', file, '--tasks', 'addition:1']);
  expect(both.status).toBe(2);
  expect(both.stderr).toMatch(/either --problem-set or --tasks/);
  const bad = cli(['--problem-set', file]);
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/bad\.jsonl.*line 1/);
}, 60_000);
