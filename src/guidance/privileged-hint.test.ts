// `privileged-hint` through plan/observe on real addition problems: the student's attempt is the bare
// problem, the hint (worked solution cut before the answer by the leakage guard) rides only in
// privilegedContext, short hints are dropped, the scorer settings carry the authors' defaults, metrics and
// state/load round-trip, and bad options or a pool without solutions are refused.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { additionProblem } from '../tasks/addition.ts';
import type { GuidanceContext } from './guidance.ts';
import { guidances } from './index.ts';

// Solution (42 characters): "4+8+0=12\n3+7+1=11\n2+6+1=09\n1+5+0=06\nA:6912"; the answer starts at 38.
const problem = additionProblem('1234', '5678');
// 1+1 = 2: "1+1+0=02\nA:2"; the guard finds "2" in "02" at 6, leaving "1+1+0=0" (7 characters < 10).
const tiny = additionProblem('1', '1');
const context: GuidanceContext = { pool: [problem, tiny], totalSteps: 10, source: 'tasks addition' };
const create = (options: object = {}) => guidances.get('privileged-hint')(options, context);

describe('privileged-hint', () => {
  it('leaves the student prompt bare and puts the guarded hint only in privilegedContext', () => {
    const guidance = create();
    const [attempt, short] = guidance.plan([problem, tiny], 1);
    expect(attempt).toEqual({
      problem,
      prompt: problem.prompt,
      prefix: '',
      guided: false,
      privilegedContext: '\n\n## Hint.4+8+0=12\n3+7+1=11\n2+6+1=09\n1+5+0=06\n',
    });
    expect(attempt.privilegedContext).not.toContain(problem.answer);
    expect(short).toEqual({ problem: tiny, prompt: tiny.prompt, prefix: '', guided: false });
    expect(guidance.privilegedScorer).toEqual({
      teacher: 'initial',
      opd: { coef: 1, discount: 0, taskAdvantage: false },
    });
    const metrics = guidance.metrics();
    expect(metrics['guidance/privileged_frac']).toBe(0.5);
    // The hint stops before the answer line (36 of 42 characters); only the other problem's hint is cut by
    // the guard (and dropped as too short).
    expect(metrics['guidance/privileged_strength']).toBeCloseTo(36 / 42, 12);
    expect(metrics['guidance/leak_cut']).toBe(1);
    expect(metrics['guidance/leak_dropped']).toBe(1);
    expect(metrics['guidance/guided_frac']).toBe(0);
  });

  it('takes fraction, marker and the OPD options', () => {
    const guidance = create({
      fraction: 0.5,
      marker: '\nH:',
      teacher: 'current',
      coef: 0.5,
      taskAdvantage: true,
    });
    expect(guidance.plan([problem], 1)[0].privilegedContext).toBe('\nH:4+8+0=12\n3+7+1=11\n2+6');
    expect(guidance.privilegedScorer).toEqual({
      teacher: 'current',
      opd: { coef: 0.5, discount: 0, taskAdvantage: true },
    });
  });

  it('counts the student’s own successes as unguided and restores its state', () => {
    const guidance = create();
    guidance.plan([problem], 1);
    const outcome = (rewards: number[]): GroupOutcome => ({
      problem,
      rewards,
      advantages: rewards.map(() => 0),
    });
    guidance.observe(1, [outcome([0, 0])]);
    guidance.plan([problem], 2);
    guidance.observe(2, [outcome([1, 0])]);
    expect(guidance.metrics()['guidance/unguided_pass_rate']).toBe(0.5);
    expect(guidance.metrics()['guidance/unlocked']).toBe(1);
    const restored = create();
    restored.load(JSON.parse(JSON.stringify(guidance.state())));
    expect(restored.state()).toEqual(guidance.state());
    expect(restored.plan([problem, tiny], 3)).toEqual(guidance.plan([problem, tiny], 3));
  });

  it('refuses unknown options and a pool without worked solutions', () => {
    expect(() => create({ fractoin: 0.5 })).toThrow(ConfigError);
    expect(() => create({ fraction: 0 })).toThrow(ConfigError);
    const bare = { ...problem, solution: '' };
    expect(() =>
      guidances.get('privileged-hint')({}, { pool: [bare], totalSteps: 1, source: 'pool file x.jsonl' }),
    ).toThrow(/guidance 'privileged-hint' needs worked solutions.*pool file x.jsonl/);
  });
});
