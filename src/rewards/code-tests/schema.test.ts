// Test-spec validation: accepted shapes, tier aliases, and DataErrors that name the problem.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../core/errors.ts';
import type { Problem } from '../../core/problem.ts';
import { codeProblem } from '../../testing/rewards/test-problems.ts';
import { parseProblemTests } from './schema.ts';

function problem(metadata: Record<string, unknown> | undefined, id = 'code/7'): Problem {
  return codeProblem(metadata, id);
}

describe('parseProblemTests', () => {
  it('accepts a flat list of stdin and call tests, python by default', () => {
    const spec = parseProblemTests(
      problem({
        tests: [
          { input: '1', output: '1' },
          { fn: 'f', args: [1], expected: [1] },
        ],
      }),
    );
    expect(spec.language).toBe('python');
    expect(spec.tiered).toBe(false);
    expect(spec.count).toBe(2);
    expect(spec.groups.get('basic')).toEqual([
      { kind: 'stdio', input: '1', output: '1' },
      { kind: 'call', fn: 'f', args: [1], expected: [1] },
    ]);
  });

  it('accepts tiers (with TAROT data aliases) in canonical order', () => {
    const spec = parseProblemTests(
      problem({
        language: 'js',
        compare: 'float',
        tests: { tiers: { edge: [{ input: 'e', output: 'e' }], medium: [{ input: 'm', output: 'm' }] } },
      }),
    );
    expect(spec.language).toBe('javascript');
    expect(spec.compare).toBe('float');
    expect(spec.tiered).toBe(true);
    expect([...spec.groups.keys()]).toEqual(['intermediate', 'edge']);
  });

  it('groups a flat list by its tier labels', () => {
    const spec = parseProblemTests(
      problem({
        tests: [
          { input: 'a', output: 'a', tier: 'high' },
          { input: 'b', output: 'b', tier: 'basic' },
        ],
      }),
    );
    expect([...spec.groups.keys()]).toEqual(['basic', 'complex']);
  });

  it('rejects malformed specs with a DataError naming the problem', () => {
    const bad: (Record<string, unknown> | undefined)[] = [
      undefined,
      { tests: [] },
      { tests: [{ input: 1, output: '1' }] },
      { tests: [{ input: '1' }] },
      { tests: [{ fn: 'a; process.exit()', args: [], expected: 1 }] },
      { tests: { tiers: { hard: [{ input: '1', output: '1' }] } } },
      { tests: { tiers: {} } },
      { tests: [{ input: '1', output: '1' }], language: 'cobol' },
      {
        tests: [
          { input: '1', output: '1', tier: 'basic' },
          { input: '2', output: '2' },
        ],
      },
    ];
    for (const metadata of bad) {
      expect(() => parseProblemTests(problem(metadata, 'code/bad'))).toThrow(DataError);
      expect(() => parseProblemTests(problem(metadata, 'code/bad'))).toThrow("problem 'code/bad'");
    }
  });
});
