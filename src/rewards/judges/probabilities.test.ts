// Expected verdicts from top log-probabilities, computed by hand.
import { describe, expect, it } from 'vitest';
import { expectedVerdict } from './probabilities.ts';

const t = (token: string, top: [string, number][] = []) => ({
  token,
  top: top.map(([alternative, p]) => ({ token: alternative, logprob: Math.log(p) })),
});
const SCORE = /\bscore\s*\**\s*[:=]/gi;

describe('expectedVerdict', () => {
  it('weights the digits at the verdict token, renormalised over their mass', () => {
    const tokens = [
      t('Fine'),
      t('. Score'),
      t(':'),
      t(' '),
      t('7', [
        ['7', 0.5],
        ['8', 0.3],
        ['x', 0.1],
        ['12', 0.05],
      ]),
    ];
    const result = expectedVerdict(tokens, SCORE, { kind: 'numbers', min: 1, max: 9 });
    // 12 is out of range, x is no digit: (0.5·7 + 0.3·8) / 0.8
    expect(result).toEqual({
      ok: true,
      value: { expected: expect.closeTo((0.5 * 7 + 0.3 * 8) / 0.8, 12), mass: expect.closeTo(0.8, 12) },
    });
  });

  it('reads the token after the LAST marker, and words by unique prefix (character-level judges)', () => {
    const tokens = [
      t('Verdict: F', [['F', 0.9]]),
      t('AIL. Then: Verdict:'),
      t(' P', [
        [' P', 0.6],
        ['F', 0.2],
        ['Q', 0.2],
      ]),
      t('ASS'),
    ];
    const result = expectedVerdict(tokens, /\bverdict\s*\**\s*[:=]/gi, {
      kind: 'words',
      words: ['FAIL', 'PASS'],
    });
    expect(result.ok && result.value.expected).toBeCloseTo(0.6 / 0.8, 12);
  });

  it('fails with a reason when there are no log-probabilities, no marker or no verdict value', () => {
    const values = { kind: 'numbers' as const, min: 0, max: 9 };
    expect(expectedVerdict(undefined, SCORE, values)).toEqual({
      ok: false,
      why: 'the server returned no token log-probabilities',
    });
    expect(expectedVerdict([t('no marker here')], SCORE, values)).toEqual({
      ok: false,
      why: 'no verdict token after the verdict marker',
    });
    const none = expectedVerdict([t('Score:'), t(' a', [[' a', 0.9]])], SCORE, values);
    expect(none.ok).toBe(false);
  });
});
