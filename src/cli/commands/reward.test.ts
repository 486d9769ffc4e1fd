// Runs the real `curricula reward check` in a child process on a temporary JSONL file.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '../../../bin/curricula.mjs');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'curricula-reward-check-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent('curricula reward check', () => {
  it('--json: one line per case, then the summary; exit 1 when a case disagrees', async () => {
    const file = join(dir, 'cases.jsonl');
    const cases = [
      {
        gold: '5',
        task: 'addition',
        prediction: '<think>2+3</think>\n<answer>\nA:5\n</answer>',
        expected: 1.1,
      },
      { gold: '5', task: 'addition', prediction: 'A:5', expected: 0 },
      { gold: '5', task: 'addition', prediction: '<think>t</think><answer>\nA:4\n</answer>', expected: 1 },
    ];
    await writeFile(file, `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`);
    const options = JSON.stringify({
      parts: [
        { name: 'format', gate: 1, weight: 0.1 },
        { name: 'verifier', weight: 1 },
      ],
    });
    const { code, stdout } = await run([
      'reward',
      'check',
      '--reward',
      'composite',
      '--options',
      options,
      '--input',
      file,
      '--json',
    ]);
    const output = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(output).toHaveLength(4);
    expect(output[0]).toMatchObject({ line: 1, reward: 1.1, agrees: true });
    expect(output[1]).toMatchObject({ line: 2, reward: 0, agrees: true, components: { gate: 0 } });
    expect(output[1].reason).toContain("gate 'format' closed");
    expect(output[2]).toMatchObject({ line: 3, agrees: false });
    expect(output[2].reward).toBeCloseTo(0.1, 12);
    expect(output[3].summary).toMatchObject({
      reward: 'composite',
      count: 3,
      withExpected: 3,
      agreements: 2,
    });
    expect(code).toBe(1);
  });

  it('a malformed line is a one-line error with file:line and exit code 2', async () => {
    const file = join(dir, 'bad.jsonl');
    await writeFile(file, '{"gold": "1", "prediction": "A:1"}\n{"gold": 1, "prediction": "A:1"}\n');
    const { code, stderr, stdout } = await run(['reward', 'check', '--reward', 'verifier', '--input', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toMatch(
      new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: field 'gold'`),
    );
  });
});
