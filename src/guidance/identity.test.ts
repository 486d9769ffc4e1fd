// `identity` (no help) keeps the shared guidance metrics, so plain GRPO is measured like every scaffold.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { additionProblem } from '../tasks/addition.ts';
import { guidances } from './index.ts';

const hard = additionProblem('1234', '5678');
const easy = additionProblem('1111', '2222');
const pool = [hard, easy];
const outcome = (problem: Problem, rewards: number[]): GroupOutcome => ({
  problem,
  rewards,
  advantages: rewards.map(() => 0),
});

describe('identity', () => {
  it('keeps the shared metrics for plain GRPO: unguided pass rate, problems it unlocks on its own', () => {
    const guidance = guidances.get('identity')({});
    expect(guidance.plan(pool, 1)).toEqual(
      pool.map((problem) => ({ problem, prompt: problem.prompt, prefix: '', guided: false })),
    );
    guidance.observe(1, [outcome(hard, [0, 0]), outcome(easy, [1, 0])]);
    guidance.plan(pool, 2);
    guidance.observe(2, [outcome(hard, [1, 0]), outcome(easy, [0, 0])]);
    expect(guidance.metrics()).toEqual({
      'guidance/guided_frac': 0,
      'guidance/strength': 0,
      'guidance/unguided_pass_rate': 0.25,
      'guidance/unlocked': 1,
      'guidance/leak_cut': 0,
      'guidance/leak_dropped': 0,
    });
    const restored = guidances.get('identity')({});
    restored.load(JSON.parse(JSON.stringify(guidance.state())));
    restored.load(null);
    expect(restored.state()).toEqual(guidance.state());
  });
});
