// The leakage guard on the hand-written cases (src/testing/guidance/leakage-cases.ts): at least 95% of
// the leaks caught and no clean hint flagged (issue 33's targets), each form of leak caught at least
// once; every caught leak's cut text no longer leaks. experiments/leakage-guard prints the table.
import { describe, expect, it } from 'vitest';
import { leakageCases } from '../../testing/guidance/leakage-cases.ts';
import { guardAgainstAnswer, leakContext } from '../leakage.ts';

describe('leakage guard on hand-written hints', () => {
  const verdicts = leakageCases.map((c) => ({
    c,
    check: guardAgainstAnswer(c.text, c.answer, leakContext(c)),
  }));

  it('flags no clean hint', () => {
    const flagged = verdicts
      .filter(({ c, check }) => !c.form && check.violated)
      .map(({ c }) => `${c.task}: ${c.text}`);
    expect(flagged).toEqual([]);
  });

  it('catches at least 95% of the leaks, every form but paraphrase at least once', () => {
    const leaks = verdicts.filter(({ c }) => c.form);
    const caught = leaks.filter(({ check }) => check.violated);
    expect(caught.length / leaks.length).toBeGreaterThanOrEqual(0.95);
    const forms = new Set(caught.map(({ c }) => c.form));
    for (const form of [
      'literal',
      'words',
      'separators',
      'case',
      'operators',
      'equal-value',
      'split',
      'scattered',
    ])
      expect(forms, form).toContain(form);
    const missed = leaks.filter(({ check }) => !check.violated).map(({ c }) => c.form);
    expect(
      missed.every((form) => form === 'paraphrase'),
      missed.join(', '),
    ).toBe(true);
  });

  it('cuts every caught leak so that the rest no longer leaks', () => {
    for (const { c, check } of verdicts.filter(({ check }) => check.violated)) {
      expect(guardAgainstAnswer(check.text, c.answer, leakContext(c)).violated, `${c.task}: ${c.text}`).toBe(
        false,
      );
    }
  });
});
