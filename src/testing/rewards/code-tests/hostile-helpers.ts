// Shared by the hostile-*.test.ts suites (not a test itself): a problem factory and a runner for hostile
// programs written so that **escape ⇔ reward 1**. Each program prints exactly `escaped` when its attack
// worked and something else (or crashes) when it did not, and every test of its problem expects `escaped`;
// so a test that asserts "no test passed" fails precisely when the sandbox lets the attack through.
import { randomUUID } from 'node:crypto';
import type { Problem } from '../../../core/problem.ts';
import type { CodeTestsReport, CodeTestsReward } from '../../../rewards/code-tests/reward.ts';
import { codeProblem } from '../test-problems.ts';

export interface HostileCase {
  name: string;
  language?: 'python' | 'javascript';
  code: string;
  /** Default: one stdio test with empty input. Every expected output is `escaped`. */
  inputs?: string[];
}

export const escapedMarker = 'escaped';

export function hostileProblem(entry: HostileCase): Problem {
  const inputs = entry.inputs ?? [''];
  return codeProblem(
    {
      tests: inputs.map((input) => ({ input, output: escapedMarker })),
      language: entry.language ?? 'python',
    },
    `hostile/${entry.name}/${randomUUID()}`,
  );
}

export function completion(entry: HostileCase): string {
  return `\`\`\`${entry.language === 'javascript' ? 'js' : 'python'}\n${entry.code}\n\`\`\``;
}

/** Runs every case concurrently through the reward's pool; returns the reports in order. */
export function runHostile(
  reward: CodeTestsReward,
  cases: readonly HostileCase[],
): Promise<CodeTestsReport[]> {
  return Promise.all(cases.map((entry) => reward.evaluate(hostileProblem(entry), completion(entry))));
}

/** The cases whose attack worked (some test passed), with the reason, for one readable assertion. */
export function escapes(cases: readonly HostileCase[], reports: readonly CodeTestsReport[]): string[] {
  return reports.flatMap((report, index) =>
    report.tests.some((test) => test.status === 'AC')
      ? [`${cases[index].name}: ${report.result.reason}`]
      : [],
  );
}

/**
 * The start of a memory-hoarding program: `held` counts what it holds; `done()` keeps it a second (the
 * watchdog polls every 100 ms), then prints the escape marker if `target` bytes were reached.
 */
export function memoryPrelude(target: number, imports = 'os, sys, time'): string {
  return `import ${imports}
held = 0
def done(why=""):
    if held >= ${target}:
        time.sleep(1)
        print("${escapedMarker}")
    else:
        print("held", held >> 20, "MiB", why)
    sys.exit(0)
`;
}
