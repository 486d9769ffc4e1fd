// Issue 26: the host-side scanners rewritten to run in linear time (linear-time.test.ts) give the results
// of the regular expressions they replaced: isSpace is \s, and findFences, extractProgram,
// usesModuleSyntax, canonicalDecimal and compareOutput match the old implementations (written out below)
// on many random inputs made of the pieces that matter to each, from a seeded generator.
import { describe, expect, it } from 'vitest';
import { type CompareMode, canonicalDecimal, compareJson, compareOutput } from './compare.ts';
import { extractProgram, findFences, isSpace, usesModuleSyntax } from './extract.ts';

const tolerance = { relTol: 1e-6, absTol: 1e-6 };
const modes: CompareMode[] = ['exact', 'whitespace', 'float'];

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
