// A vitest reporter that closes the run with every skipped test, by file, so that a machine without the
// native kernels, bubblewrap, chromium or PyTorch says which tests did not run and why (their names carry
// the reason: test/requirements.ts). A suite skipped whole is one line with its test count.
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';

/** The skipped blocks of a module: whole skipped suites once, otherwise each skipped test. */
function skippedBlocks(parent: TestModule | TestSuite): { name: string; tests: number }[] {
  const blocks: { name: string; tests: number }[] = [];
  for (const child of parent.children) {
    if (child.type === 'suite') {
      if (child.state() === 'skipped')
        blocks.push({ name: child.fullName, tests: [...child.children.allTests()].length });
      else blocks.push(...skippedBlocks(child));
    } else if (isSkipped(child)) {
      blocks.push({ name: child.fullName, tests: 1 });
    }
  }
  return blocks;
}

function isSkipped(test: TestCase): boolean {
  const result = test.result();
  return result.state === 'skipped' && test.options.mode !== 'todo';
}

/** The summary's lines ([] when nothing was skipped). */
export function skipSummary(modules: ReadonlyArray<TestModule>): string[] {
  const lines: string[] = [];
  let total = 0;
  for (const module of modules) {
    for (const block of skippedBlocks(module)) {
      total += block.tests;
      const count = block.tests === 1 ? '' : ` [${block.tests} tests]`;
      lines.push(`  ${module.relativeModuleId}: ${block.name}${count}`);
    }
  }
  return total === 0 ? [] : [`Skipped ${total} test${total === 1 ? '' : 's'}:`, ...lines];
}

export default class SkipSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines = skipSummary(modules);
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
