// `curricula reward check` with a judge (its checkRewardCases): agreement with the expected truth, the
// cases scored above it (a lenient judge's false positives), and a repeated check answered entirely from
// the verdict cache in --state-dir. The judge is a real HTTP server on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Problem } from '../../core/problem.ts';
import { checkRewardCases, type RewardCase } from '../check.ts';

let requests = 0;
const server = createServer((request, response) => {
  let text = '';
  request.on('data', (chunk) => {
    text += chunk;
  });
  request.on('end', () => {
    requests++;
    const prompt = (JSON.parse(text) as { messages: { content: string }[] }).messages[0].content;
    // a lenient judge: passes 7 (right) and 8 (wrong), fails the rest
    const content = /-> [78]$/.test(prompt) ? 'Verdict: PASS' : 'Verdict: FAIL';
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ choices: [{ message: { content } }] }));
  });
});
let endpoint = '';
const dir = mkdtempSync(join(tmpdir(), 'check-judge-'));
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const problem = (answer: string): Problem => ({
  id: `p${answer}`,
  task: 'addition',
  prompt: '3+4\n',
  answer,
  solution: `A:${answer}`,
  category: 'addition',
  difficulty: 1,
  params: {},
});

it('reports agreement and false positives, and a repeated check asks nothing', async () => {
  const cases: RewardCase[] = [
    { line: 1, problem: problem('7'), prediction: 'A:7', expected: 1 },
    { line: 2, problem: problem('7'), prediction: 'A:8', expected: 0 }, // a false pass
    { line: 3, problem: problem('7'), prediction: 'A:5', expected: 0 },
  ];
  const options = { endpoint, verdict: { type: 'pass-fail' }, template: '{{prompt}} -> {{extracted}}' };
  const lenient = await checkRewardCases('judge-score', options, cases, { stateDir: dir });
  expect(lenient.summary).toMatchObject({ count: 3, withExpected: 3, agreements: 2, above: 1, errors: 0 });
  expect(requests).toBe(3);
  const before = requests;
  const again = await checkRewardCases('judge-score', options, cases, { stateDir: dir });
  expect(requests).toBe(before);
  expect(again.results.map((result) => result.components.judge_cached)).toEqual([1, 1, 1]);
  expect(again.summary.agreements).toBe(lenient.summary.agreements);
});
