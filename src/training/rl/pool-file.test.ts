// Pool files: parsing with and without difficulty, and every inconsistency refused with file:line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../core/problem.ts';
import { additionProblem } from '../../tasks/addition.ts';
import { readPoolFile } from './pool-file.ts';

function record(problem: Problem, changes: Record<string, unknown> = {}, remove: string[] = []): string {
  const value: Record<string, unknown> = { ...problem, ...changes };
  for (const field of remove) delete value[field];
  return JSON.stringify(value);
}

function poolFile(lines: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'curricula-pool-')), 'pool.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const a = additionProblem('758', '67'); // difficulty 3
const b = additionProblem('12', '9'); // difficulty 2
const c = additionProblem('4', '5'); // difficulty 1

describe('pool files', () => {
  it('reads problems with difficulties, keeping their lines (blank lines skipped)', () => {
    const file = poolFile([record(a), '', record(b)]);
    const entries = readPoolFile(file);
    expect(entries.map((entry) => [entry.line, entry.problem.difficulty])).toEqual([
      [1, 3],
      [3, 2],
    ]);
  });

  it('reads problems without any difficulty; they come back without the field', () => {
    const file = poolFile([record(a, {}, ['difficulty']), record(b, {}, ['difficulty'])]);
    const entries = readPoolFile(file);
    expect(entries).toHaveLength(2);
    expect('difficulty' in entries[0].problem).toBe(false);
  });

  it('refuses a mix of problems with and without difficulty, naming the line and the line that set the pattern', () => {
    const withFirst = poolFile([record(a), record(b), record(c, {}, ['difficulty'])]);
    expect(() => readPoolFile(withFirst)).toThrow(
      `${withFirst} line 3: problem '${c.id}' has no difficulty, but line 1 has one: inconsistent difficulty metadata`,
    );
    const withoutFirst = poolFile([record(a, {}, ['difficulty']), record(b)]);
    expect(() => readPoolFile(withoutFirst)).toThrow(
      `${withoutFirst} line 2: problem '${b.id}' has difficulty 2, but line 1 has none`,
    );
  });

  it('refuses a difficulty outside the task range', () => {
    const file = poolFile([record(a), record(b, { id: 'hand-made-1', difficulty: 13 })]);
    expect(() => readPoolFile(file)).toThrow(`${file} line 2: addition difficulty 13 is outside [1, 12]`);
  });

  it('refuses a generated id whose level differs from the difficulty field', () => {
    const file = poolFile([record(c), record(a, { difficulty: 5 })]);
    expect(() => readPoolFile(file)).toThrow(
      `${file} line 2: inconsistent difficulty: id '${a.id}' says difficulty 3, the difficulty field says 5`,
    );
    // A hand-made id says nothing about the level: accepted.
    expect(readPoolFile(poolFile([record(a, { id: 'mine', difficulty: 5 })]))).toHaveLength(1);
  });

  it('refuses the same prompt at two levels, and a plain duplicate prompt', () => {
    const twoLevels = poolFile([record(a), record(c), record(a, { id: 'copy', difficulty: 4 })]);
    expect(() => readPoolFile(twoLevels)).toThrow(
      `${twoLevels} line 3: inconsistent difficulty: the same addition prompt is difficulty 3 on line 1 and 4 here`,
    );
    const duplicate = poolFile([record(a), record(a, { id: 'copy' })]);
    expect(() => readPoolFile(duplicate)).toThrow(`${duplicate} line 2: duplicate prompt (first on line 1)`);
  });

  it('refuses a held-out evaluation problem in the pool', () => {
    const file = poolFile([record(a), record(b)]);
    expect(() => readPoolFile(file, [b])).toThrow(
      `${file} line 2: problem '${b.id}' is one of the run's held-out evaluation problems`,
    );
  });

  it('passes the problem-set parser errors through (bad JSON names the line); an empty or missing file is a config error', () => {
    const bad = poolFile([record(a), '{"id":']);
    expect(() => readPoolFile(bad)).toThrow(`${bad} line 2: bad JSON`);
    expect(() => readPoolFile(poolFile(['']))).toThrow(/holds no problems/);
    expect(() => readPoolFile('/nonexistent/pool.jsonl')).toThrow(/pool.file: cannot read \/nonexistent/);
  });
});
