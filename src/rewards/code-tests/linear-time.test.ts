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
// The rewritten scanners are checked against the old expressions on many random inputs.
import { describe, expect, it } from 'vitest';
import { type CompareMode, canonicalDecimal, compareJson, compareOutput } from './compare.ts';
import { extractProgram, findFences, isSpace, maxCompletionChars, usesModuleSyntax } from './extract.ts';
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

// ---- the implementations before issue 26, for the equivalence checks (small inputs only) ----

const legacyFencePattern = /^(`{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*?)(?:^\1`*[ \t]*$|(?![\s\S]))/gm;
const legacyFences = (text: string) =>
  [...text.matchAll(legacyFencePattern)].map((match) => ({ tag: match[2], body: match[3] }));
const legacyTags = {
  python: ['python', 'python3', 'py'],
  javascript: ['javascript', 'js', 'node', 'nodejs', 'mjs', 'cjs'],
};

function legacyExtract(completion: string, language: 'python' | 'javascript') {
  const blocks = legacyFences(completion).map(({ tag, body }) => ({ tag: tag.toLowerCase(), body }));
  if (blocks.length === 0) {
    const code = completion.trim();
    return code
      ? { code: `${code}\n`, source: 'whole completion (no fence)', fenced: false }
      : { code: null, source: 'empty completion', fenced: false };
  }
  const tagged = blocks.filter((block) => legacyTags[language].includes(block.tag));
  if (tagged.length > 0) {
    const block = tagged[tagged.length - 1];
    return { code: block.body, source: `last \`\`\`${block.tag} block`, fenced: true };
  }
  const untagged = blocks.filter((block) => block.tag === '');
  if (untagged.length > 0) {
    return { code: untagged[untagged.length - 1].body, source: 'last untagged ``` block', fenced: true };
  }
  // (Before issue 26 every tag was listed in full; the random completions here have few, short ones.)
  const found = [...new Set(blocks.map((block) => block.tag))].join(', ');
  return { code: null, source: `no ${language} code block (fences found: ${found})`, fenced: false };
}
const legacyModuleSyntax = (code: string) => /^\s*(import\s[^;]*\sfrom\s|import\s+['"]|export\s)/m.test(code);
const legacyDecimalPattern = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function legacyCanonicalDecimal(token: string): string | null {
  const match = legacyDecimalPattern.exec(token);
  if (!match) return null;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return null;
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = BigInt(exponentText) - BigInt(fraction.length);
  if (digits === '') return '0';
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += BigInt(trailing);
  return `${sign === '-' ? '-' : ''}${digits}e${exponent}`;
}

function legacyCompareOutput(actual: string, expected: string, mode: CompareMode): boolean {
  if (mode === 'exact') return actual.replace(/\n+$/, '') === expected.replace(/\n+$/, '');
  if (mode === 'whitespace') {
    const actualLines = actual.trim().split('\n');
    const expectedLines = expected.trim().split('\n');
    if (actualLines.length !== expectedLines.length) return false;
    return actualLines.every((line, index) => {
      const a = line.trim();
      const b = expectedLines[index].trim();
      if (a === b) return true;
      const aTokens = a.split(/\s+/);
      const bTokens = b.split(/\s+/);
      if (aTokens.length !== bTokens.length) return false;
      return aTokens.every((token, i) => {
        const x = legacyCanonicalDecimal(token);
        return x !== null && x === legacyCanonicalDecimal(bTokens[i]);
      });
    });
  }
  const aTokens = actual.trim().split(/\s+/);
  const bTokens = expected.trim().split(/\s+/);
  if (aTokens.length !== bTokens.length) return false;
  return aTokens.every((token, index) => {
    const other = bTokens[index];
    if (token === other) return true;
    if (legacyCanonicalDecimal(token) === null || legacyCanonicalDecimal(other) === null) return false;
    const a = Number(token);
    const b = Number(other);
    if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
    return Math.abs(a - b) <= Math.max(1e-6, 1e-6 * Math.max(Math.abs(a), Math.abs(b)));
  });
}

// A small deterministic generator (mulberry32), so that a failure can be replayed.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomText(next: () => number, pieces: readonly string[], maxPieces: number): string {
  let text = '';
  const count = Math.floor(next() * (maxPieces + 1));
  for (let i = 0; i < count; i++) text += pieces[Math.floor(next() * pieces.length)];
  return text;
}

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
  // findFences has no cap of its own; extractProgram reads at most maxCompletionChars.
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
      expectLinear(input, findFences, { maxRatio: 10 });
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

describe('the scanners give the old results on random normal inputs', () => {
  it('isSpace is exactly \\s', () => {
    const wrong: string[] = [];
    for (let code = 0; code < 0x10000; code++) {
      if (isSpace(code) !== /\s/.test(String.fromCharCode(code))) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('findFences and extractProgram match the old fence expression', () => {
    const next = random(26);
    const pieces = [
      '```',
      '````',
      '`',
      '``',
      ' ',
      '\t',
      '\n',
      '\n',
      '\n',
      '\r\n',
      '\r',
      '\u2028',
      '\u00a0',
      'python',
      'py',
      'js',
      'bash',
      'PY',
      'print(1)',
      'x',
      'a b',
    ];
    for (let i = 0; i < 10_000; i++) {
      const text = randomText(next, pieces, 24);
      expect(findFences(text), JSON.stringify(text)).toEqual(legacyFences(text));
      for (const language of ['python', 'javascript'] as const) {
        expect(extractProgram(text, language), JSON.stringify(text)).toEqual(legacyExtract(text, language));
      }
    }
  });

  it('usesModuleSyntax matches the old expression', () => {
    const next = random(2026);
    const pieces = [
      'import',
      'export',
      'from',
      ' ',
      '\t',
      '\n',
      '\r',
      '\u2029',
      '\u3000',
      ';',
      "'",
      '"',
      'x',
      'default',
      '{ a }',
    ];
    for (let i = 0; i < 20_000; i++) {
      const code = randomText(next, pieces, 16);
      expect(usesModuleSyntax(code), JSON.stringify(code)).toBe(legacyModuleSyntax(code));
    }
    const honest = [
      "import fs from 'node:fs';\nconsole.log(1)",
      "import 'node:process'",
      'export function f() {}',
      '  \n  export default 3',
      'const x = 1; // import x from y',
      'const s = require("fs")',
    ];
    for (const code of honest) expect(usesModuleSyntax(code)).toBe(legacyModuleSyntax(code));
  });

  it('canonicalDecimal matches the old BigInt version, long exponents and carries included', () => {
    const next = random(7);
    const digit = () => String(Math.floor(next() * 10));
    const digits = (max: number) => Array.from({ length: Math.floor(next() * (max + 1)) }, digit).join('');
    const tokens: string[] = [];
    for (let i = 0; i < 20_000; i++)
      tokens.push(randomText(next, ['0', '1', '9', '.', 'e', 'E', '+', '-', 'x'], 8));
    for (let i = 0; i < 20_000; i++) {
      const sign = ['', '+', '-'][Math.floor(next() * 3)];
      const exponentSign = ['', '+', '-'][Math.floor(next() * 3)];
      const fraction = next() < 0.5 ? '' : `.${digits(30)}${'0'.repeat(Math.floor(next() * 20))}`;
      // Exponents near the 15-digit boundary and 10^k ± small, where carries and borrows cross digits.
      const exponent = [
        digits(40),
        `1${'0'.repeat(Math.floor(next() * 30))}`,
        '9'.repeat(1 + Math.floor(next() * 30)),
        `${'0'.repeat(Math.floor(next() * 4))}1${'0'.repeat(14 + Math.floor(next() * 3))}${digits(2)}`,
      ][Math.floor(next() * 4)];
      const whole = `${'0'.repeat(Math.floor(next() * 3))}${digits(20)}${'0'.repeat(Math.floor(next() * 25))}`;
      tokens.push(`${sign}${whole}${fraction}${next() < 0.8 ? `e${exponentSign}${exponent}` : ''}`);
    }
    for (const token of tokens) expect(canonicalDecimal(token), token).toBe(legacyCanonicalDecimal(token));
  });

  it('compareOutput matches the old comparators in every mode', () => {
    const next = random(42);
    const pieces = [
      '\u00a0',
      '\u3000',
      '\v',
      '1',
      '1.0',
      '0.30000000000000004',
      '0.3',
      '-0',
      '1e3',
      '1000',
      'YES',
      'a',
      ' ',
      '  ',
      '\t',
      '\n',
      '\n\n',
      '\r\n',
    ];
    for (let i = 0; i < 2000; i++) {
      const expected = randomText(next, pieces, 10);
      // Near misses: the expected text, re-spaced, with a piece swapped, or unrelated.
      const variants = [
        expected,
        `${expected}\n`,
        ` ${expected.replace(/ /g, '  ')}`,
        expected.replace(/1\.0/g, '1').replace(/1000/g, '1e3'),
        randomText(next, pieces, 10),
      ];
      for (const actual of variants) {
        for (const mode of modes) {
          expect(
            compareOutput(actual, expected, mode, tolerance),
            `${mode} ${JSON.stringify([actual, expected])}`,
          ).toBe(legacyCompareOutput(actual, expected, mode));
        }
      }
    }
    expect(compareJson([1, 2], [1, 2], 'exact', tolerance)).toBe(true);
  });
});
