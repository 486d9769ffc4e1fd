// rubric-scaffold (RuscaRL): the reveal ratio by hand, Python's rounding, the criteria written into each
// member's prompt, the bare training prompt, config-time refusals, and resume (state/load) exactness.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { additionProblem } from '../tasks/addition.ts';
import { tasks } from '../tasks/index.ts';
import { guidances } from './index.ts';
import { answerPosition } from './leakage.ts';
import {
  createRubricScaffoldGuidance,
  groupFactor,
  type RubricScaffoldOptions,
  revealRatio,
  roundHalfEven,
  stepDecay,
} from './rubric-scaffold.ts';
import { problemRubric } from './rubrics.ts';

const defaults: RubricScaffoldOptions = {
  rule: 'step_sigmoid',
  startPoint: 0.2,
  steepness: 125,
  power: 1,
  groupDecay: 'linear',
  fullRevealCount: 1,
  selection: 'random',
  header: '',
};

// 758+067 = 825: columns 8+7+0=15, 5+6+1=12, 7+0+1=08.
const problem = additionProblem('758', '67');
const context = (pool: Problem[], extra: object = {}) => ({
  pool,
  totalSteps: 101,
  source: 'test pool',
  groupSize: 8,
  seed: 7,
  ...extra,
});

describe('rubric-scaffold', () => {
  it('g_j = (n−1−j)/(n−1), s(t) = 1/(1+exp((x−x0)k)), x = (t−1)/(T−1), by hand', () => {
    expect([0, 1, 2, 7].map((j) => groupFactor(defaults, j, 8))).toEqual([1, 6 / 7, 5 / 7, 0]);
    expect(groupFactor({ ...defaults, groupDecay: 'binary', fullRevealCount: 2 }, 1, 8)).toBe(1);
    expect(groupFactor({ ...defaults, groupDecay: 'binary', fullRevealCount: 2 }, 2, 8)).toBe(0);
    // T = 101: step 21 is x = 0.2 = x0, s = 1/2; step 1: 1/(1+e^-25); step 101: 1/(1+e^100).
    expect(stepDecay(defaults, 21, 101)).toBeCloseTo(0.5, 12);
    expect(stepDecay(defaults, 1, 101)).toBeCloseTo(1 / (1 + Math.exp(-25)), 12);
    expect(stepDecay(defaults, 101, 101)).toBeLessThan(1e-40);
    // The yaml's x0 = 0.3, k = 10 at x = 0.5: 1/(1+e^2).
    expect(stepDecay({ ...defaults, startPoint: 0.3, steepness: 10 }, 51, 101)).toBeCloseTo(
      1 / (1 + Math.exp(2)),
      12,
    );
    expect(stepDecay({ ...defaults, rule: 'step_linear' }, 26, 101)).toBeCloseTo(0.75, 12);
    expect(stepDecay({ ...defaults, rule: 'step_power', power: 2 }, 51, 101)).toBeCloseTo(0.25, 12);
    expect(stepDecay({ ...defaults, rule: 'linear' }, 90, 101)).toBe(1);
    expect(revealRatio(defaults, 3, 1, 90, 101)).toBe(1); // n = 1: the authors' early return
    expect(revealRatio(defaults, 1, 8, 21, 101)).toBeCloseTo((6 / 7) * 0.5, 12);
  });

  it("rounds as Python's round (halves to even)", () => {
    expect([0.5, 1.5, 2.5, 3.5, 2.4999, 2.5001, 0].map(roundHalfEven)).toEqual([0, 2, 2, 4, 2, 3, 0]);
  });

  it('the rubric of 758+067: the shape and each column, never the answer', () => {
    expect(problemRubric(problem)).toEqual({
      criteria: ['sum has 3 digits', 'column 1 carries', 'column 2 carries', 'column 3 no carry'],
      dropped: 0,
    });
    // Sharing a number with the answer is not a leak: 0+1 = 1, and the 1 of "sum has 1 digits" and of
    // "column 1 no carry" is the prompt's operand 1, not after '=' or "is" (leak-forms.ts digitLeak).
    expect(problemRubric(additionProblem('0', '1'))).toEqual({
      criteria: ['sum has 1 digits', 'column 1 no carry'],
      dropped: 0,
    });
    expect(problemRubric(additionProblem('4', '5')).criteria).toEqual([
      'sum has 1 digits',
      'column 1 no carry',
    ]);
  });

  it('no criterion of any task holds its answer (200 problems per task)', () => {
    const rng = new Rng(11);
    for (const name of ['addition', 'modular-chain', 'string-compose', 'countdown']) {
      const task = tasks.get(name);
      let kept = 0;
      for (let i = 0; i < 200; i++) {
        const drawn = task.generate(
          rng,
          task.difficulty.min + (i % (task.difficulty.max - task.difficulty.min + 1)),
        );
        const { criteria } = problemRubric(drawn);
        kept += criteria.length;
        for (const criterion of criteria)
          expect(answerPosition(criterion, drawn.answer, { prompt: drawn.prompt })).toBe(-1);
      }
      expect(kept).toBeGreaterThan(200);
    }
  });

  it('member j gets round(r_j · 4) criteria before the bare prompt; trainPrompt is the bare prompt', () => {
    const guidance = createRubricScaffoldGuidance({ selection: 'ordered' }, context([problem]));
    const [attempt] = guidance.plan([problem], 1);
    const criteria = problemRubric(problem).criteria;
    // s(1) = 1/(1+e^-25) ≈ 1: r_j·4 = 4, 3.43, 2.86, 2.29, 1.71, 1.14, 0.57, 0 → 4 3 3 2 2 1 1 0.
    const counts = [4, 3, 3, 2, 2, 1, 1, 0];
    expect(attempt.trainPrompt).toBe(problem.prompt);
    expect(attempt.prompt).toBe(problem.prompt);
    expect(attempt.guided).toBe(true);
    expect(attempt.memberPrompts).toEqual(
      counts.map((count) =>
        count === 0 ? problem.prompt : `${criteria.slice(0, count).join('\n')}\n${problem.prompt}`,
      ),
    );
    // Late in training s(t) ≈ 0: no criterion anywhere, a bare unguided attempt.
    const [late] = guidance.plan([problem], 101);
    expect(late).toEqual({
      problem,
      prompt: problem.prompt,
      prefix: '',
      guided: false,
      trainPrompt: problem.prompt,
    });
    expect(guidance.metrics()['guidance/rubric_decay']).toBeLessThan(1e-40);
  });

  it('random selection: distinct criteria from the rubric; resume replays the same choices', () => {
    const first = createRubricScaffoldGuidance({}, context([problem]));
    first.plan([problem], 1);
    const saved = JSON.parse(JSON.stringify(first.state()));
    const next = first.plan([problem], 2)[0];
    const resumed = createRubricScaffoldGuidance({}, context([problem]));
    resumed.load(saved);
    expect(resumed.plan([problem], 2)[0]).toEqual(next);
    const criteria = new Set(problemRubric(problem).criteria);
    for (const prompt of next.memberPrompts!) {
      const lines = prompt.split('\n').slice(0, -2);
      expect(new Set(lines).size).toBe(lines.length);
      for (const line of lines) expect(criteria.has(line)).toBe(true);
    }
  });

  it('maxCriteria caps each member; observe splits pass rates by member', () => {
    const guidance = createRubricScaffoldGuidance(
      { maxCriteria: 1, selection: 'ordered' },
      context([problem]),
    );
    const [attempt] = guidance.plan([problem], 1);
    expect(
      attempt.memberPrompts!.slice(0, 7).every((prompt) => prompt === `sum has 3 digits\n${problem.prompt}`),
    ).toBe(true);
    guidance.observe(1, [{ problem, rewards: [1, 1, 0, 0, 0, 0, 0, 1], advantages: [] }]);
    const metrics = guidance.metrics();
    expect(metrics['guidance/guided_pass_rate']).toBeCloseTo(2 / 7, 12);
    expect(metrics['guidance/unguided_pass_rate']).toBe(1);
    expect(metrics['guidance/criteria_shown']).toBeCloseTo(7 / 8, 12);
  });

  it('refuses, at build time: a task without a rubric, rollout.budget, no pool, an unknown option', () => {
    const math: Problem = { ...problem, id: 'm1', task: 'math' };
    expect(() => createRubricScaffoldGuidance({}, context([math]))).toThrow(
      "guidance 'rubric-scaffold' needs a rubric for every task, but test pool has math (rubrics exist for addition, countdown, modular-chain, string-compose; src/guidance/rubrics.ts)",
    );
    expect(() => createRubricScaffoldGuidance({}, context([problem], { adaptiveGroupSize: true }))).toThrow(
      /fixed group size/,
    );
    expect(() => createRubricScaffoldGuidance({})).toThrow(ConfigError);
    expect(() => guidances.get('rubric-scaffold')({ steepnes: 3 }, context([problem]))).toThrow(ConfigError);
  });
});
