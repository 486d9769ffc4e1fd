// `hints` (QuestA) through plan/observe on real addition problems: who is hard, the hint text and its
// schedule, the 10-character rule, the leakage guard, the probe visits, the metrics, and state/load.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { additionProblem } from '../tasks/addition.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { hintFraction } from './hints.ts';
import { guidances } from './index.ts';

// 4-digit sum: 42 characters of solution "4+8+0=12\n3+7+1=11\n2+6+1=09\n1+5+0=06\nA:6912".
const hard = additionProblem('1234', '5678');
const easy = additionProblem('1111', '2222');
const pool = [hard, easy];
const context: GuidanceContext = { pool, totalSteps: 30, source: 'tasks addition' };

const outcome = (problem: Problem, rewards: number[]): GroupOutcome => ({
  problem,
  rewards,
  advantages: rewards.map(() => 0),
});

function hints(options: object = {}, ctx: GuidanceContext = context): Guidance {
  return guidances.get('hints')(options, ctx);
}

describe('hints', () => {
  it('schedule: 50% → 25% → 0 in equal thirds of train.steps by default, or at stageEnds', () => {
    const options = { schedule: [0.5, 0.25, 0], minHintChars: 10, stageEnds: undefined } as never;
    expect([1, 10, 11, 20, 21, 30].map((step) => hintFraction(options, 30, step))).toEqual([
      0.5, 0.5, 0.25, 0.25, 0, 0,
    ]);
    const custom = { schedule: [0.5, 0.25, 0], stageEnds: [3, 5] } as never;
    expect([3, 4, 5, 6].map((step) => hintFraction(custom, 30, step))).toEqual([0.5, 0.25, 0.25, 0]);
  });

  it('hints only problems whose unguided pass rate is below the threshold; unseen problems are not hard', () => {
    const guidance = hints({ probeEvery: 0 });
    const first = guidance.plan(pool, 1);
    expect(first.map((attempt) => attempt.guided)).toEqual([false, false]);
    guidance.observe(1, [outcome(hard, [0, 0, 0, 0, 0, 0, 0, 1]), outcome(easy, [1, 1, 1, 0])]);
    const [hinted, bare] = guidance.plan(pool, 2);
    // p = 0.5 of 42 characters = 21: "4+8+0=12\n3+7+1=11\n2+6".
    expect(hinted).toEqual({
      problem: hard,
      prompt: '1234+5678\n\n\n## Hint.4+8+0=12\n3+7+1=11\n2+6',
      prefix: '',
      guided: true,
    });
    expect(bare).toEqual({ problem: easy, prompt: easy.prompt, prefix: '', guided: false });
    // Stage 2 (steps 11-20): p = 0.25 → 10 characters.
    expect(guidance.plan([hard], 11)[0].prompt).toBe('1234+5678\n\n\n## Hint.4+8+0=12\n3');
    // Stage 3: p = 0, bare prompts.
    expect(guidance.plan([hard], 21)[0].guided).toBe(false);
  });

  it('estimates from unguided groups only (EMA 0.5), so a hinted success does not end the hints', () => {
    const guidance = hints({ probeEvery: 0 });
    guidance.plan([hard], 1);
    guidance.observe(1, [outcome(hard, [0, 0, 0, 0])]);
    guidance.plan([hard], 2);
    guidance.observe(2, [outcome(hard, [1, 1, 1, 1])]); // a guided group
    expect(guidance.plan([hard], 3)[0].guided).toBe(true);
    expect((guidance.state() as { estimates: Record<string, number> }).estimates[hard.id]).toBe(0);
    // An unguided probe at pass rate 1: EMA 0 + 0.5·(1 − 0) = 0.5 ≥ 0.25, no longer hard.
    const probing = hints({ probeEvery: 2 });
    probing.plan([hard], 1);
    probing.observe(1, [outcome(hard, [0, 0])]);
    expect(probing.plan([hard], 2)[0].guided).toBe(true);
    const [probe] = probing.plan([hard], 3);
    expect(probe.guided).toBe(false);
    probing.observe(3, [outcome(hard, [1, 1])]);
    expect((probing.state() as { estimates: Record<string, number> }).estimates[hard.id]).toBe(0.5);
    expect(probing.plan([hard], 4)[0].guided).toBe(false);
  });

  it('omits a hint shorter than 10 characters (QuestA) and cuts hints before the answer', () => {
    // 1-digit: solution "3+4+0=07\nA:7" (12 characters); p = 0.5 → "3+4+0=" (6) < 10 → omitted.
    const small = additionProblem('3', '4');
    const guidance = hints({ probeEvery: 0 }, { pool: [small], totalSteps: 30, source: 'test' });
    guidance.plan([small], 1);
    guidance.observe(1, [outcome(small, [0, 0])]);
    expect(guidance.plan([small], 2)[0].guided).toBe(false);
    // p = 1 shows the whole solution: the guard cuts it before the column sum "07" (the answer 7 as its
    // tail), leaving "3+4+0=", too short: dropped, counted as cut and dropped.
    const full = hints({ probeEvery: 0, schedule: [1] }, { pool: [small], totalSteps: 30, source: 'test' });
    full.plan([small], 1);
    full.observe(1, [outcome(small, [0, 0])]);
    expect(full.plan([small], 2)[0].guided).toBe(false);
    expect(full.metrics()).toMatchObject({ 'guidance/leak_cut': 1, 'guidance/leak_dropped': 1 });
    // A longer problem at p = 1: cut back to just before "A:6912"'s digits, still used.
    const long = hints({ probeEvery: 0, schedule: [1] });
    long.plan([hard], 1);
    long.observe(1, [outcome(hard, [0, 0])]);
    const [attempt] = long.plan([hard], 2);
    // p = 1 reaches the answer line: the hint stops before it ("A:" and the answer), with nothing left
    // for the guard to cut (worked-solution.ts solutionUpTo).
    expect(attempt.prompt).toBe(`${hard.prompt}\n\n## Hint.4+8+0=12\n3+7+1=11\n2+6+1=09\n1+5+0=06\n`);
    expect(attempt.prompt).not.toContain('6912');
    expect(long.metrics()).toMatchObject({ 'guidance/leak_cut': 0, 'guidance/leak_dropped': 0 });
  });

  it('reports guided fraction, pass rates, strength and unlocked problems', () => {
    const guidance = hints({ probeEvery: 0 });
    guidance.plan(pool, 1);
    guidance.observe(1, [outcome(hard, [0, 0, 0, 0]), outcome(easy, [1, 0, 0, 0])]);
    expect(guidance.metrics()).toMatchObject({
      'guidance/guided_frac': 0,
      'guidance/unguided_pass_rate': 0.125,
      'guidance/strength': 0,
      'guidance/unlocked': 0,
      'guidance/hard': 1, // easy's 0.25 is not below the threshold
    });
    expect(guidance.metrics()['guidance/guided_pass_rate']).toBeUndefined();
    guidance.plan(pool, 2);
    guidance.observe(2, [outcome(hard, [1, 0, 0, 0]), outcome(easy, [1, 1, 0, 0])]);
    expect(guidance.metrics()).toMatchObject({
      'guidance/guided_frac': 0.5,
      'guidance/guided_pass_rate': 0.25,
      'guidance/unguided_pass_rate': 0.5,
      'guidance/strength': 21 / 42,
      'guidance/unlocked': 1,
      'guidance/hint_p': 0.5,
    });
  });

  it('state() / load(): a fresh instance plans the same attempts and keeps the counts', () => {
    const guidance = hints({ probeEvery: 3 });
    for (let step = 1; step <= 4; step++) {
      guidance.plan(pool, step);
      guidance.observe(step, [outcome(hard, [0, 0]), outcome(easy, [step % 2, 0])]);
    }
    const saved = JSON.parse(JSON.stringify(guidance.state()));
    const restored = hints({ probeEvery: 3 });
    restored.load(saved);
    for (let step = 5; step <= 12; step++) {
      expect(restored.plan(pool, step), `step ${step}`).toEqual(guidance.plan(pool, step));
      const outcomes = [outcome(hard, [0, step % 3 === 0 ? 1 : 0]), outcome(easy, [0, 0])];
      guidance.observe(step, outcomes);
      restored.observe(step, outcomes);
    }
    expect(restored.state()).toEqual(guidance.state());
    expect(restored.metrics()).toEqual(guidance.metrics());
    expect(() => restored.load({ estimates: 'x' })).toThrow(/saved state/);
  });

  it('refuses a pool without worked solutions at setup, naming the source and problems', () => {
    const bare = { ...hard, id: 'p-17', solution: '' };
    expect(() => hints({}, { pool: [easy, bare], totalSteps: 3, source: 'pool file data/x.jsonl' })).toThrow(
      "guidance 'hints' needs worked solutions, but 1 of 2 problems from pool file data/x.jsonl have an empty solution (e.g. p-17)",
    );
    expect(() => guidances.get('hints')({})).toThrow(/needs the run's problem pool/);
    expect(() => hints({ schedule: [0.5, 0], stageEnds: [1, 2] })).toThrow(/stageEnds needs 1 steps/);
  });
});
