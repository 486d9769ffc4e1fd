// Agreement with Math-Verify (huggingface/Math-Verify, the verifier the Python RL frameworks use) on the
// cases of mathverify-cases.ts, through the reward as registered (`rewards.get('math-answer')`, worker pool).
// A false positive is a case we score 1 where Math-Verify scores 0: there must be none. The agreement rate
// must stay at or above 95% (it is printed), and every disagreement must be one of the known ones listed in
// the cases, so that breaking any one behaviour fails the test.
import { afterAll, describe, expect, it } from 'vitest';
import type { Problem } from '../../core/problem.ts';
import type { Reward } from '../../core/reward.ts';
import {
  deliberateDeviations,
  type MathVerifyCase,
  mathVerifyCases,
  mathVerifyHeldOut,
} from '../../testing/rewards/math-answer/mathverify-cases.ts';
import { rewards } from '../index.ts';

const problem = (k: MathVerifyCase, i: number): Problem => ({
  id: `mv-${i}`,
  task: 'math',
  prompt: k.behaviour === 'echo' ? 'What is $2+3$?' : 'Solve the problem.',
  answer: k.gold,
  solution: '',
  category: 'math',
  difficulty: 1,
  params: {},
});

async function scoreAll(reward: Reward, cases: readonly MathVerifyCase[]): Promise<number[]> {
  const results = await reward.score(
    cases.map((k, i) => ({ problem: problem(k, i), completion: k.completion })),
  );
  return results.map((result) => result.reward);
}

describe('agreement with Math-Verify', () => {
  const reward = rewards.get('math-answer')({ poolSize: 2 });
  afterAll(() => reward.close?.());

  it('has at least 100 cases, both verdicts, across the behaviours', () => {
    expect(mathVerifyCases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(mathVerifyCases.map((k) => k.behaviour)).size).toBeGreaterThanOrEqual(20);
    expect(mathVerifyCases.filter((k) => k.mathVerify === 0).length).toBeGreaterThanOrEqual(25);
  });

  it('agrees on at least 95% of the cases with no false positives', async () => {
    const scores = await scoreAll(reward, mathVerifyCases);
    const disagreements = mathVerifyCases
      .map((k, i) => ({ ...k, ours: scores[i] }))
      .filter((k) => k.ours !== k.mathVerify);
    const falsePositives = disagreements.filter((k) => k.ours === 1);
    const agreement = 1 - disagreements.length / mathVerifyCases.length;
    console.log(
      `math-answer vs Math-Verify: ${mathVerifyCases.length - disagreements.length}/${mathVerifyCases.length} ` +
        `agree (${(100 * agreement).toFixed(1)}%), ${falsePositives.length} false positives`,
    );
    for (const k of disagreements) {
      console.log(
        `  disagree (${k.behaviour}): gold ${k.gold} | ${JSON.stringify(k.completion)} → ours ${k.ours}, Math-Verify ${k.mathVerify}`,
      );
    }
    expect(falsePositives.map((k) => `${k.gold} | ${k.completion}`)).toEqual([]);
    expect(agreement).toBeGreaterThanOrEqual(0.95);
    // Any disagreement beyond the known ones is a regression of the behaviour its group names.
    const unexpected = disagreements.filter((k) => !k.known);
    expect(unexpected.map((k) => `${k.behaviour}: ${k.gold} | ${k.completion}`)).toEqual([]);
  });

  it('agrees on the held-out cases (written after the fixes) with no false positives', async () => {
    const scores = await scoreAll(reward, mathVerifyHeldOut);
    const disagreements = mathVerifyHeldOut.filter((k, i) => scores[i] !== k.mathVerify);
    console.log(
      `math-answer vs Math-Verify, held out: ${mathVerifyHeldOut.length - disagreements.length}/${mathVerifyHeldOut.length} agree`,
    );
    for (const k of disagreements)
      console.log(`  disagree (${k.behaviour}): gold ${k.gold} | ${k.completion}`);
    expect(disagreements.filter((k) => k.mathVerify === 0).map((k) => k.completion)).toEqual([]);
    expect(disagreements.length / mathVerifyHeldOut.length).toBeLessThanOrEqual(0.05);
  });

  it('differs on purpose where documented', async () => {
    const scores = await scoreAll(reward, deliberateDeviations);
    expect(scores).toEqual(deliberateDeviations.map((k) => k.ours));
  });
});
