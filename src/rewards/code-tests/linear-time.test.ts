// Issue 26: every host-side comparison and extraction takes time linear in its input. An outside attacker
// found three regular expressions that backtracked quadratically (the whitespace and exact comparators,
// the code-fence extractor): 65k characters blocked the event loop 3–4 s, a 250k-digit answer 62 s.
//
// Each adversarial input below is the worst case of one old expression, at sizes up to the output cap
// (1 MiB) and past it. Sizes go up from 64 KiB, so that a quadratic implementation fails on the first,
// small one (in seconds) rather than running for hours; the bounds are generous for a loaded 2-core CI.
// Linearity itself: quadrupling the input from 1 MiB to 4 MiB multiplies the best CPU time by less than 8
// (each doubling at most ~2.8×: linear is 4, quadratic 16). CPU time, because on a loaded machine a long
// run is sliced with other processes more often than a short one, which inflates wall-time ratios. Inputs
// that allocate an object per token or per fence get 10: the collector's share grows with the heap.
// The rewritten scanners are checked against the old expressions in scanner-equivalence.test.ts.
import { describe, expect, it } from 'vitest';
import { type CompareMode, canonicalDecimal, compareOutput } from './compare.ts';
import { extractProgram, maxCompletionChars, scanFences, usesModuleSyntax } from './extract.ts';
import { judge } from './judge.ts';
import { printable } from './printable.ts';
import type { SandboxOutcome } from './sandbox.ts';
import type { TestCase } from './schema.ts';

const kib = 1024;
const mib = 1024 * kib;
const tolerance = { relTol: 1e-6, absTol: 1e-6 };
const modes: CompareMode[] = ['exact', 'whitespace', 'float'];

/** Best of `reps` wall times of `run`, in ms. */
function bestMs(run: () => unknown, reps: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < reps; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** Best of `reps` CPU times (user + system, this process) of `run`, in ms. */
function bestCpuMs(run: () => unknown, reps: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < reps; i++) {
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

// Bounds per size: 64 KiB (a quadratic version takes seconds here), 256 KiB, 1 MiB (the output cap).
const bounds: [number, number][] = [
  [64 * kib, 250],
  [256 * kib, 300],
  [mib, 500],
];

/**
 * `run(input(size))` within the bounds at each size, and ~linear from 1 MiB to 4 MiB: the CPU-time ratio is
 * measured up to 3 times and must be below `maxRatio` once (a quadratic version is far above it each time).
 */
function expectLinear(
  input: (size: number) => string,
  run: (text: string) => unknown,
  { reps = 2, maxRatio = 8 } = {},
): void {
  for (const [size, limitMs] of bounds) {
    const text = input(size);
    const ms = bestMs(() => run(text), 2);
    expect(ms, `${size} characters`).toBeLessThan(limitMs);
  }
  const one = input(mib);
  const four = input(4 * mib);
  const ratios: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const t1 = bestCpuMs(() => run(one), reps);
    const t4 = bestCpuMs(() => run(four), reps);
    // Below 1 ms the clock and the JIT dominate; a quadratic version is far above it at 1 MiB.
    const ratio = t4 / Math.max(t1, 1);
    if (ratio < maxRatio) return;
    ratios.push(`CPU: 1 MiB ${t1.toFixed(2)} ms, 4 MiB ${t4.toFixed(2)} ms`);
  }
  expect.fail(`not linear: ${ratios.join('; ')}`);
}

const repeatTo = (unit: string, size: number, tail = '') =>
  unit.repeat(Math.max(0, Math.floor((size - tail.length) / unit.length))) + tail;

describe('adversarial outputs are compared in linear time', () => {
  it("'exact': a long run of newlines that does not end the output (old /\\n+$/)", () => {
    expectLinear(
      (size) => repeatTo('\n', size, 'x'),
      (text) => compareOutput(text, 'x', 'exact', tolerance),
    );
    expectLinear(
      (size) => repeatTo('\n\n\n\n\n\n\n\nx', size),
      (text) => compareOutput(text, 'x', 'exact', tolerance),
    );
  });

  it("'whitespace' and 'float': one long number with a long run of zeros inside (old /0+$/)", () => {
    for (const mode of ['whitespace', 'float'] as const) {
      expectLinear(
        (size) => `1${'0'.repeat(size - 2)}1`,
        (text) => compareOutput(text, '1', mode, tolerance),
      );
      expectLinear(
        (size) => `0.${'0'.repeat(size - 3)}1`,
        (text) => compareOutput(text, '2', mode, tolerance),
      );
    }
  });

  it("'whitespace' and 'float': exponents of a million digits, runs of spaces, many tokens and lines", () => {
    // Against the same text with its first token written differently: every token is then parsed.
    const differentFirst = (text: string) => `1.0${text.slice(1)}`;
    for (const mode of ['whitespace', 'float'] as const) {
      expectLinear(
        (size) => `1e${'9'.repeat(size - 2)}`,
        (text) => compareOutput(text, differentFirst(text), mode, tolerance),
      );
      expectLinear(
        (size) => `1${' '.repeat(size - 3)} x`,
        (text) => compareOutput(text, differentFirst(text), mode, tolerance),
      );
    }
    expectLinear(
      (size) => repeatTo('1 ', size),
      (text) => compareOutput(text, differentFirst(text), 'whitespace', tolerance),
      { reps: 2, maxRatio: 10 },
    );
    // Many lines: against a short expected output (the line counts differ) and against itself, re-spaced.
    expectLinear(
      (size) => repeatTo('0\n', size),
      (text) => compareOutput(text, '1 2', 'whitespace', tolerance),
    );
    expectLinear(
      (size) => repeatTo(' \n', size, '1'),
      (text) => compareOutput(text, ` ${text}`, 'whitespace', tolerance),
    );
  });

  it('canonicalDecimal on one long token', () => {
    expectLinear((size) => `1${'0'.repeat(size - 2)}1`, canonicalDecimal);
    expectLinear((size) => `-${'0'.repeat(size - 3)}10`, canonicalDecimal);
    expectLinear((size) => `${'0'.repeat(size >> 1)}e-${'9'.repeat((size >> 1) - 2)}`, canonicalDecimal);
    expectLinear((size) => `${'1'.repeat(size >> 1)}e-${'9'.repeat((size >> 1) - 2)}`, canonicalDecimal);
    expectLinear((size) => `.${'5'.repeat(size >> 1)}e${'1'.repeat((size >> 1) - 2)}`, canonicalDecimal);
  });
});

describe('adversarial completions are read in linear time', () => {
  // scanFences has no cap of its own; extractProgram reads at most maxCompletionChars. The scanner is timed
  // with a visitor that only counts: findFences, which builds an object per fence, is checked for what it
  // returns (scanner-equivalence.test.ts), and its 466k objects at 4 MiB made the ratio the collector's
  // (12-13x on a CI run, three times).
  const countFences = (text: string) => {
    let count = 0;
    scanFences(text, () => count++);
    return count;
  };
  const fenceInputs: [string, (size: number) => string][] = [
    [
      'an opening fence with no newline after it (old [^\\n]* backtracking)',
      (size) => `\`\`\`${'a'.repeat(size - 3)}`,
    ],
    ['a line of backticks with no newline', (size) => '`'.repeat(size)],
    ['an opening fence followed by spaces', (size) => `\`\`\`py${' '.repeat(size - 5)}`],
    [
      'text, then an unterminated fence line',
      (size) => `${repeatTo('x\n', size >> 1)}\`\`\`${'b'.repeat(size >> 1)}`,
    ],
    [
      'a long fence whose body is lines of shorter fences',
      (size) => `${'`'.repeat(64)}\n${repeatTo(`${'`'.repeat(63)}\n`, size)}`,
    ],
    ['many tiny fences', (size) => repeatTo('```x\n```\n', size)],
    ['newlines only, inside an unclosed fence', (size) => `\`\`\`python\n${'\n'.repeat(size - 10)}`],
  ];
  for (const [name, input] of fenceInputs) {
    it(name, () => {
      expectLinear(input, countFences, { maxRatio: 10 });
      expectLinear(input, (text) => extractProgram(text, 'python', 4 * mib), { maxRatio: 10 });
    });
  }

  it('usesModuleSyntax: blank lines, and import lines without a semicolon (old ^\\s* and [^;]*)', () => {
    expectLinear((size) => repeatTo('\n', size, 'x'), usesModuleSyntax);
    expectLinear((size) => repeatTo(' \n\t', size, 'x'), usesModuleSyntax);
    expectLinear((size) => repeatTo('import x\n', size), usesModuleSyntax);
    expectLinear((size) => repeatTo('import fromx\n', size), usesModuleSyntax);
    expectLinear((size) => repeatTo('\n \t', size, 'import'), usesModuleSyntax);
  });

  it('refuses a completion past maxCompletionChars without reading it, and reads one at the cap', () => {
    const long = `\`\`\`python\nprint(1)\n\`\`\`\n${'x'.repeat(maxCompletionChars)}`;
    expect(extractProgram(long, 'python')).toEqual({
      code: null,
      source: `completion longer than ${maxCompletionChars} characters (not read)`,
      fenced: false,
    });
    const atCap = `\`\`\`python\nprint(1)\n\`\`\`\n`.padEnd(maxCompletionChars, 'x');
    expect(extractProgram(atCap, 'python').code).toBe('print(1)\n');
  });

  it('lists at most 8 fence tags of at most 40 characters in the reason', () => {
    const tags = Array.from({ length: 20 }, (_, i) => `lang${i}`);
    const fences = tags.map((tag) => `\`\`\`${tag}\nx\n\`\`\`\n`).join('');
    const text = `${fences}\`\`\`${'z'.repeat(1000)}\nx\n\`\`\`\n`;
    const { source } = extractProgram(text, 'python');
    expect(source).toBe(`no python code block (fences found: ${tags.slice(0, 8).join(', ')}, … 13 more)`);
    const one = extractProgram(`\`\`\`${'z'.repeat(100)}\nx\n\`\`\``, 'python').source;
    expect(one).toBe(`no python code block (fences found: ${'z'.repeat(40)}…)`);
  });
});

describe('the grader on a 1 MiB adversarial output', () => {
  const base: SandboxOutcome = {
    exitCode: 0,
    signal: null,
    stdout: '',
    stderr: '',
    wallMs: 1,
    timedOut: false,
    outputExceeded: null,
    memoryExceededMb: null,
  };
  const outputs = (size: number) => [
    repeatTo('\n', size, 'x'),
    `1${'0'.repeat(size - 2)}1`,
    `1e${'9'.repeat(size - 2)}`,
    repeatTo('1 ', size),
    repeatTo('\u009b0', size),
    repeatTo('\u001b]', size),
    `[${repeatTo('1,', size - 2)}1]`,
  ];

  it('judges each within 500 ms in every mode, stdio and function-call tests', () => {
    const stdio: TestCase = { kind: 'stdio', input: '', output: '1' };
    const call: TestCase = { kind: 'call', fn: 'f', args: [], expected: [1] };
    // 64 KiB first, where the old comparators already took seconds; then the output cap.
    for (const size of [64 * kib, mib]) {
      for (const stdout of outputs(size)) {
        for (const mode of modes) {
          for (const test of [stdio, call]) {
            const options = { mode, tolerance, timeoutMs: 1000, maxOutputBytes: 2 * mib };
            const ms = bestMs(() => judge({ ...base, stdout }, test, options), 1);
            expect(ms, `${JSON.stringify(stdout.slice(0, 8))}… ${mode} ${test.kind}`).toBeLessThan(500);
          }
        }
      }
    }
  });

  it('judges a 1 MiB deeply nested JSON result within 2 s (JSON.parse builds every level; no recursion limit is hit)', () => {
    const half = mib >> 1;
    const nested = [
      `${'['.repeat(half)}${']'.repeat(half)}`,
      `${'{"a":'.repeat(half / 5)}1${'}'.repeat(half / 5)}`,
    ];
    for (const stdout of nested) {
      for (const expected of [[1], [[[[1]]]], { a: { a: 1 } }]) {
        const test: TestCase = { kind: 'call', fn: 'f', args: [], expected };
        const options = { mode: 'exact' as const, tolerance, timeoutMs: 1000, maxOutputBytes: 2 * mib };
        const started = performance.now();
        expect(judge({ ...base, stdout }, test, options).status).toBe('WA');
        expect(performance.now() - started).toBeLessThan(2000);
      }
    }
  });

  it('printable stays linear on escape-sequence patterns (the grader quotes stderr and stdout through it)', () => {
    // The judge cleans at most 64 KiB of stderr and the first 4 KiB of stdout; this is the function itself.
    for (const unit of ['\u009b0', '\u001b[', '\u001b]']) {
      expectLinear((size) => repeatTo(unit, size), printable, { maxRatio: 10 });
    }
    expectLinear((size) => `\u009b${'0'.repeat(size >> 1)}${' '.repeat(size >> 1)}\n`, printable, {
      reps: 2,
    });
  });
});
