import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../core/errors.ts';
import { additionProblem } from './addition.ts';
import { formatProblemSet, parseProblemSet, readProblemSet, writeProblemSet } from './problem-set.ts';

const good = JSON.stringify(additionProblem('758', '67'));

function lineWith(changes: Record<string, unknown>, remove: string[] = []): string {
  const record: Record<string, unknown> = { ...JSON.parse(good), ...changes };
  for (const field of remove) delete record[field];
  return JSON.stringify(record);
}

describe('problem sets (JSONL)', () => {
  const directories: string[] = [];
  afterAll(async () => {
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  it('round-trips through a file, with and without metadata', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'curricula-problems-'));
    directories.push(directory);
    const problems = [
      additionProblem('758', '67'),
      { ...additionProblem('1', '2'), metadata: { source: 'hand' } },
    ];
    const file = join(directory, 'sets', 'train.jsonl');
    await writeProblemSet(file, problems);
    expect(await readProblemSet(file)).toEqual(problems);
    expect(formatProblemSet(problems).split('\n')).toHaveLength(3);
  });

  it('skips blank lines and accepts CRLF', () => {
    expect(parseProblemSet(`\n${good}\r\n\n`, 'a.jsonl')).toHaveLength(1);
  });

  it('names the file, line number and the problem', () => {
    const cases: [string, string][] = [
      ['{"id": ', 'sets/x.jsonl line 2: bad JSON'],
      ['[1,2]', 'sets/x.jsonl line 2: expected a JSON object'],
      [lineWith({}, ['answer']), "sets/x.jsonl line 2: missing field 'answer'"],
      [lineWith({}, ['answer', 'params']), "sets/x.jsonl line 2: missing fields 'answer', 'params'"],
      [
        lineWith({ difficulty: 'three' }),
        "sets/x.jsonl line 2: field 'difficulty': Invalid input: expected number",
      ],
      [lineWith({ difficulty: 2.5 }), "sets/x.jsonl line 2: field 'difficulty'"],
      [lineWith({ params: { digits: [1] } }), "sets/x.jsonl line 2: field 'params.digits'"],
      [lineWith({ soluton: 'typo' }), 'sets/x.jsonl line 2: Unrecognized key: "soluton"'],
      [
        lineWith({ task: 'multiplication' }),
        "sets/x.jsonl line 2: unknown task 'multiplication'; known: addition,",
      ],
      [good, "sets/x.jsonl line 2: duplicate id 'addition-3-"],
    ];
    for (const [line, message] of cases) {
      const text = `${good}\n${line}\n`;
      expect(() => parseProblemSet(text, 'sets/x.jsonl')).toThrow(DataError);
      expect(() => parseProblemSet(text, 'sets/x.jsonl')).toThrow(message);
    }
  });

  it('reports an unreadable file as a DataError', async () => {
    await expect(readProblemSet('/nonexistent/problems.jsonl')).rejects.toThrow(
      'cannot read problem set /nonexistent/problems.jsonl',
    );
  });
});
