// End to end: real programs in the real sandbox, graded through the Reward interface and the registry;
// refusal when the sandbox is unavailable; option validation.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import { ConfigError, DataError } from '../../core/errors.ts';
import type { Problem } from '../../core/problem.ts';
import { codeProblem } from '../../testing/rewards/test-problems.ts';
import { rewards } from '../index.ts';
import { SandboxUnavailableError } from './probe.ts';
import { CodeTestsReward } from './reward.ts';

function problem(metadata: Record<string, unknown>, id = 'code/sum'): Problem {
  return codeProblem(metadata, id);
}

const tieredSum = problem({
  tests: {
    tiers: {
      basic: [
        { input: '1 2\n', output: '3\n' },
        { input: '5 5\n', output: '10\n' },
      ],
      intermediate: [{ input: '100 23\n', output: '123\n' }],
      complex: [{ input: '123456789 987654321\n', output: '1111111110\n' }],
      edge: [
        { input: '-1 -2\n', output: '-3\n' },
        { input: '0 0\n', output: '0\n' },
      ],
    },
  },
});

const sumPython = '```python\na, b = map(int, input().split())\nprint(a + b)\n```';
// Wrong on negative sums only: fails one edge test.
const absPython = '```python\na, b = map(int, input().split())\nprint(abs(a + b))\n```';

const sandbox = bubblewrap();
const reward = unlessSkipped(sandbox, () => new CodeTestsReward({ timeoutMs: 3000, concurrency: 2 }));
afterAll(() => reward?.close());

describe.skipIf(sandbox.skip)(`code-tests reward${sandbox.label}`, () => {
  it('is registered as code-tests and grades through the Reward interface', async () => {
    const viaRegistry = rewards.get('code-tests')({ timeoutMs: 3000 });
    expect(viaRegistry.name).toBe('code-tests');
    const [good, partial, none] = await viaRegistry.score([
      { problem: tieredSum, completion: `Sure.\n${sumPython}` },
      { problem: tieredSum, completion: absPython },
      { problem: tieredSum, completion: 'I cannot solve this.\n```text\nno\n```' },
    ]);
    expect(good.reward).toBe(1);
    expect(good.components).toEqual({
      pass_rate: 1,
      fenced: 1,
      'tier/basic': 1,
      'tier/intermediate': 1,
      'tier/complex': 1,
      'tier/edge': 1,
    });
    // 5 of 6 tests, uniform per-test weights: 5/6
    expect(partial.reward).toBeCloseTo(5 / 6, 12);
    expect(partial.components['tier/edge']).toBe(0.5);
    expect(partial.reason).toContain('edge 1/2');
    expect(partial.reason).toContain('first: edge#0 WA');
    expect(none.reward).toBe(0);
    expect(none.components).toMatchObject({ pass_rate: 0, fenced: 0, 'tier/basic': 0, 'tier/edge': 0 });
    expect(none.reason).toMatch(/^no python code block \(fences found: text\); passed 0\/6 tests/);
    await viaRegistry.close?.();
  });

  it('applies TAROT weights, all-or-nothing and schedules end to end (formulas: tiers.test.ts)', async () => {
    const variants = [
      // var, per-test: passed .35*2 + .35 + .15 + .15*1 = 1.35 of 1.5
      [{ weights: 'var' }, 1.35 / 1.5],
      [{ aggregate: 'all' }, 0],
      // hard-first at 30 %: complex and edge count: 2 of 3
      [{ schedule: 'hard-first', totalSteps: 100 }, 2 / 3],
    ] as const;
    const results = await Promise.all(
      variants.map(async ([options]) => {
        const variant = new CodeTestsReward({ timeoutMs: 3000, concurrency: 1, ...options });
        const step = 'schedule' in options ? 30 : undefined;
        const [result] = await variant.score([{ problem: tieredSum, completion: absPython, step }]);
        return result.reward;
      }),
    );
    variants.forEach(([options, expected], index) => {
      expect(results[index], JSON.stringify(options)).toBeCloseTo(expected, 12);
    });
  });

  it('runs function-call tests in python (incl. LeetCode classes) and javascript', async () => {
    const python = problem({
      tests: [
        { fn: 'twoSum', args: [[2, 7, 11, 15], 9], expected: [0, 1] },
        { fn: 'pair', args: [3], expected: [3, 6] },
        { fn: 'mean', args: [[1, 2]], expected: 1.5 },
      ],
    });
    const pythonCode = `\`\`\`python
class Solution:
    def twoSum(self, nums, target):
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [seen[target - x], i]
            seen[x] = i

def pair(x):
    print("debug output goes to stderr")
    return (x, 2 * x)

def mean(xs):
    return sum(xs) / len(xs)

if __name__ == "__main__":
    print(input())
\`\`\``;
    const js = problem({
      language: 'javascript',
      tests: [
        { fn: 'add', args: [1, 2], expected: 3 },
        { fn: 'Counter.next', args: [], expected: 1 },
        { fn: 'later', args: [4], expected: { value: 4 } },
        { input: '2 3', output: '5' },
      ],
    });
    const jsCode = `\`\`\`javascript
function add(a, b) { console.log('noise'); return a + b; }
class Counter { constructor() { this.n = 0; } next() { return ++this.n; } }
const later = async (v) => ({ value: v });
if (require.main === module) {
  const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);
  console.log(a + b);
}
\`\`\``;
    const [py, node] = await Promise.all([reward.evaluate(python, pythonCode), reward.evaluate(js, jsCode)]);
    expect(py.tests.map((test) => test.status)).toEqual(['AC', 'AC', 'AC']);
    expect(node.tests.map((test) => test.status)).toEqual(['AC', 'AC', 'AC', 'AC']);

    const wrong = await reward.evaluate(python, '```python\ndef pair(x):\n    return [x, x]\n```');
    expect(wrong.tests.map((test) => test.status)).toEqual(['RE', 'WA', 'RE']);
    expect(wrong.tests[0].detail).toContain("function 'twoSum' is not defined");
  });

  it('grades a fence-free completion and ES-module javascript', async () => {
    const bare = await reward.evaluate(tieredSum, 'a, b = map(int, input().split())\nprint(a + b)');
    expect(bare.result).toMatchObject({ reward: 1, components: { fenced: 0 } });
    expect(bare.result.reason).toContain('whole completion (no fence)');
    const esm = await reward.evaluate(
      problem({ language: 'js', tests: [{ input: '4 5', output: '9' }] }),
      "```js\nimport { readFileSync } from 'node:fs';\nconst [a, b] = readFileSync(0, 'utf8').split(' ').map(Number);\nconsole.log(a + b);\n```",
    );
    expect(esm.result.reward).toBe(1);
  });

  it('uses the comparison mode from options or the problem', async () => {
    const floats = problem({ tests: [{ input: '', output: '0.3' }] });
    const code = '```python\nprint(0.1 + 0.2)\n```';
    expect((await reward.evaluate(floats, code)).result.reward).toBe(0);
    const tolerant = new CodeTestsReward({ compare: 'float' });
    expect((await tolerant.evaluate(floats, code)).result.reward).toBe(1);
    const perProblem = problem({ compare: 'float', tests: [{ input: '', output: '0.3' }] });
    expect((await reward.evaluate(perProblem, code)).result.reward).toBe(1);
    const exact = new CodeTestsReward({ compare: 'exact' });
    const spaced = problem({ tests: [{ input: '', output: '1 2' }] });
    expect((await exact.evaluate(spaced, '```python\nprint(" 1 2")\n```')).result.reward).toBe(0);
    expect((await reward.evaluate(spaced, '```python\nprint(" 1 2")\n```')).result.reward).toBe(1);
  });

  it('fail-fast skips the remaining tests after the first failure', async () => {
    const failFast = new CodeTestsReward({ failFast: true });
    const report = await failFast.evaluate(tieredSum, absPython);
    expect(report.tests.map((test) => test.status)).toEqual(['AC', 'AC', 'AC', 'AC', 'WA', 'SKIP']);
    expect(report.result.reward).toBeCloseTo(4 / 6, 12);
  });

  it('close() waits for running sandboxes and refuses new work', async () => {
    const closing = new CodeTestsReward({ timeoutMs: 3000 });
    let finished = false;
    const oneTest = problem({ tests: [{ input: '', output: 'done' }] });
    const running = closing
      .evaluate(oneTest, '```python\nimport time\ntime.sleep(0.3)\n```')
      .then((report) => {
        finished = true;
        return report;
      });
    await closing.close();
    expect(finished).toBe(true);
    expect((await running).result.reward).toBe(0);
    await expect(closing.evaluate(tieredSum, sumPython)).rejects.toThrow('closed');
  });

  it('rejects malformed tests with a DataError before running anything', async () => {
    const bad = problem({ tests: [{ input: '1' }] }, 'code/broken');
    await expect(
      reward.score([
        { problem: tieredSum, completion: sumPython },
        { problem: bad, completion: sumPython },
      ]),
    ).rejects.toThrow(DataError);
    await expect(reward.score([{ problem: bad, completion: sumPython }])).rejects.toThrow(
      "problem 'code/broken'",
    );
  });

  it('rejects bad options with a ConfigError naming the key', () => {
    expect(() => new CodeTestsReward({ timeoutMs: -1 })).toThrow(ConfigError);
    expect(() => new CodeTestsReward({ timeout: 5 })).toThrow("unknown key 'timeout'");
    expect(() => new CodeTestsReward({ schedule: 'easy-to-hard' })).toThrow('totalSteps');
    expect(() => new CodeTestsReward({ weights: { basic: 1 } })).toThrow(ConfigError);
  });

  it('refuses to run any code when bubblewrap is missing or cannot create namespaces', () => {
    expect(() => new CodeTestsReward({ bwrapPath: '/nonexistent/bwrap' })).toThrow(SandboxUnavailableError);
    expect(() => new CodeTestsReward({ bwrapPath: '/nonexistent/bwrap' })).toThrow(
      /apt-get install -y bubblewrap/,
    );
    expect(() => rewards.get('code-tests')({ bwrapPath: '/nonexistent/bwrap' })).toThrow(
      SandboxUnavailableError,
    );

    // A bwrap that fails the way it does without unprivileged user namespaces; it logs each call.
    const dir = mkdtempSync(join(tmpdir(), 'code-tests-fake-bwrap-'));
    chmodSync(dir, 0o777);
    try {
      const fake = join(dir, 'bwrap');
      writeFileSync(
        fake,
        `#!/bin/sh\necho call >> ${dir}/calls\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n`,
      );
      chmodSync(fake, 0o755);
      expect(() => new CodeTestsReward({ bwrapPath: fake })).toThrow(/user namespaces/);
      expect(() => new CodeTestsReward({ bwrapPath: fake })).toThrow(
        /No permissions to creating new namespace/,
      );
      // Probed once and cached: two constructions, one call.
      expect(readFileSync(join(dir, 'calls'), 'utf8')).toBe('call\n');
      // A bubblewrap older than 0.8 does not know --disable-userns: the message says so.
      const old = join(dir, 'old-bwrap');
      writeFileSync(old, "#!/bin/sh\necho 'bwrap: Unknown option --disable-userns' >&2\nexit 1\n");
      chmodSync(old, 0o755);
      expect(() => new CodeTestsReward({ bwrapPath: old })).toThrow(/too old .* needs bubblewrap ≥ 0\.8/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
