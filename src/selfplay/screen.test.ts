import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { addition, additionProblem } from '../tasks/addition.ts';
import { countdown } from '../tasks/countdown.ts';
import { splitProblemSets } from '../tasks/generate-set.ts';
import { heldOutKeys, type ScreenContext, screenProposal } from './screen.ts';

const context = (overrides: Partial<ScreenContext> = {}): ScreenContext => ({
  task: addition,
  heldOut: new Set(),
  seen: new Set(),
  heldOutFraction: 0,
  maxTokens: 1000,
  ...overrides,
});

describe('parseProblem and canonicalKey', () => {
  it('addition: parses a statement into the generator-identical problem, solved by the task', () => {
    const parsed = addition.parseProblem!('758+67\nrest is ignored');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.problem).toEqual(additionProblem('758', '67'));
    expect(addition.verify(parsed.problem, parsed.problem.solution).correct).toBe(true);
  });

  it('addition: swapped and zero-padded variants share the canonical key; other sums do not', () => {
    const key = addition.canonicalKey!(additionProblem('758', '67'));
    for (const [a, b] of [
      ['67', '758'],
      ['0758', '067'],
      ['067', '000758'],
    ]) {
      expect(addition.canonicalKey!(additionProblem(a, b))).toBe(key);
    }
    expect(addition.canonicalKey!(additionProblem('758', '68'))).not.toBe(key);
    expect(addition.canonicalKey!(additionProblem('0', '0'))).toBe('addition:0+0');
  });

  it('countdown: parses, solves with its own search, and the solution verifies', () => {
    const parsed = countdown.parseProblem!('make 112:25,3,4');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(countdown.verify(parsed.problem, parsed.problem.solution).correct).toBe(true);
    expect(countdown.parseProblem!('make 998:1,1,1')).toMatchObject({ ok: false, reason: 'out-of-grammar' });
  });

  it('countdown: generated problems parse back solvable; permutations share the key', () => {
    const rng = new Rng(3);
    for (let i = 0; i < 20; i++) {
      const problem = countdown.generate(rng, 3 + (i % 4));
      const parsed = countdown.parseProblem!(problem.prompt);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) continue;
      expect(countdown.verify(parsed.problem, parsed.problem.solution).correct).toBe(true);
      expect(countdown.canonicalKey!(parsed.problem)).toBe(countdown.canonicalKey!(problem));
    }
    const a = countdown.parseProblem!('make 112:25,3,4');
    const b = countdown.parseProblem!('make 112:4,25,3');
    expect(a.ok && b.ok && countdown.canonicalKey!(a.problem) === countdown.canonicalKey!(b.problem)).toBe(
      true,
    );
  });
});

describe('screenProposal', () => {
  it('rejects swapped, padded and permuted variants of held-out problems (adversarial)', () => {
    const { heldOut } = splitProblemSets({
      task: addition,
      difficulties: [3],
      trainCount: 1,
      heldOutCount: 5,
      seed: 1,
    });
    const keys = heldOutKeys(addition, heldOut);
    for (const problem of heldOut) {
      const [a, b] = problem.prompt.trim().split('+');
      for (const text of [problem.prompt, `${b}+${a}`, `0${a}+${b}`, `${b}+00${a}\n`]) {
        expect(screenProposal(text, context({ heldOut: keys }))).toMatchObject({
          ok: false,
          reason: 'held-out',
        });
      }
    }
    const cd = countdown.parseProblem!('make 112:25,3,4');
    if (!cd.ok) throw new Error('fixture');
    const cdKeys = heldOutKeys(countdown, [cd.problem]);
    expect(screenProposal('make 112:4,3,25', context({ task: countdown, heldOut: cdKeys }))).toMatchObject({
      ok: false,
      reason: 'held-out',
    });
    expect(screenProposal('make 103:4,3,25', context({ task: countdown, heldOut: cdKeys })).ok).toBe(true);
  });

  it('rejects problems in the held-out hash partition', () => {
    const { heldOut } = splitProblemSets({
      task: addition,
      difficulties: [4],
      trainCount: 1,
      heldOutCount: 3,
      seed: 2,
    });
    for (const problem of heldOut) {
      expect(screenProposal(problem.prompt, context({ heldOutFraction: 0.2 }))).toMatchObject({
        reason: 'held-out',
      });
    }
  });

  it('counts garbage by reason and never throws', () => {
    const garbage = [
      '',
      '\n\n',
      '+',
      '12+',
      'A:5',
      '１２+３',
      '1+2+3',
      'make 5:1,2',
      `${'9'.repeat(13)}+1`,
      '💥',
      'x'.repeat(10000),
    ];
    const reasons = garbage.map((text) => {
      const result = screenProposal(text, context());
      expect(result.ok).toBe(false);
      return result.ok ? 'ok' : result.reason;
    });
    expect(reasons.filter((reason) => reason === 'out-of-grammar')).toHaveLength(1);
    expect(reasons.filter((reason) => reason === 'unparsable')).toHaveLength(garbage.length - 1);
    const throwing = {
      ...addition,
      parseProblem: () => {
        throw new Error('boom');
      },
    };
    expect(screenProposal('1+1', context({ task: throwing }))).toMatchObject({
      ok: false,
      reason: 'unparsable',
    });
    expect(screenProposal(null as unknown as string, context())).toMatchObject({
      ok: false,
      reason: 'unparsable',
    });
  });

  it('rejects too-long problems and duplicates of the pool by canonical key', () => {
    expect(screenProposal('999999+1', context({ maxTokens: 12 * 6 + 6 }))).toMatchObject({
      reason: 'too-long',
    });
    expect(screenProposal('999999+1', context({ maxTokens: 12 * 6 + 7 })).ok).toBe(true);
    const seen = new Set([addition.canonicalKey!(additionProblem('12', '34'))]);
    expect(screenProposal('034+12', context({ seen }))).toMatchObject({ reason: 'duplicate' });
  });
});
