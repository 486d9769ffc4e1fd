import { describe, expect, it } from 'vitest';
import { testProblem } from '../../testing/curricula/test-pool.ts';
import { SimulatedLearner } from './learner.ts';
import { learners } from './learners.ts';

const spec = {
  name: 'test',
  description: '',
  levels: 3,
  guess: 0,
  slip: 0,
  categories: [
    { name: 'base', kind: 'learnable' as const, initialSkill: 1, learningRate: 0.4 },
    {
      name: 'gated',
      kind: 'prerequisite' as const,
      initialSkill: 0,
      learningRate: 0.4,
      prerequisite: 'base',
      unlockAt: 1.2,
    },
    { name: 'coin', kind: 'noise' as const, initialSkill: 0, learningRate: 1, noiseRate: 0.5 },
  ],
};

describe('simulated learner', () => {
  it('success probability is σ(skill − difficulty), with guess/slip floors', () => {
    const learner = new SimulatedLearner(spec);
    expect(learner.probability('base', 1)).toBe(0.5);
    expect(learner.probability('base', 0)).toBeCloseTo(0.731059, 6);
    expect(learner.probability('coin', 2)).toBe(0.5);
    const floored = new SimulatedLearner({ ...spec, guess: 0.1, slip: 0.05 });
    expect(floored.probability('base', 1)).toBeCloseTo(0.1 + 0.85 * 0.5, 12);
  });

  it('learns lr·p̂(1−p̂) per group; all-correct groups, noise and locked categories teach nothing', () => {
    const learner = new SimulatedLearner(spec);
    const base = testProblem('b', { category: 'base', difficulty: 1 });
    const gated = testProblem('g', { category: 'gated', difficulty: 0 });
    const coin = testProblem('c', { category: 'coin', difficulty: 0 });
    learner.learn([
      { problem: base, rewards: [1, 1, 0, 0] }, // +0.4·0.25 = 0.1
      { problem: base, rewards: [1, 1, 1, 1] }, // +0
      { problem: gated, rewards: [1, 0, 0, 0] }, // locked: base skill 1 < 1.2
      { problem: coin, rewards: [1, 0, 1, 0] },
    ]);
    expect(learner.skills.get('base')).toBeCloseTo(1.1, 12);
    expect(learner.skills.get('gated')).toBe(0);
    learner.learn([{ problem: base, rewards: [1, 0, 1, 0] }]); // base → 1.2: unlocks gated
    learner.learn([{ problem: gated, rewards: [1, 0, 0, 0] }]); // +0.4·0.1875
    expect(learner.skills.get('gated')).toBeCloseTo(0.075, 12);
  });

  it('held-out accuracy averages the non-noise categories over all levels', () => {
    const learner = new SimulatedLearner(spec);
    const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
    const expected =
      ([1, 0, -1].map(sigmoid).reduce((a, b) => a + b) + [0, -1, -2].map(sigmoid).reduce((a, b) => a + b)) /
      6;
    expect(learner.heldOutAccuracy()).toBeCloseTo(expected, 12);
  });

  it('reverse-curriculum problems are easier by the revealed fraction', () => {
    const learner = new SimulatedLearner(spec);
    const derived = testProblem('b#r1', {
      category: 'base',
      difficulty: 2,
      metadata: { revealedSteps: 1, totalSteps: 2 },
    });
    expect(learner.successProbability(derived)).toBe(0.5); // difficulty 2·(1 − 1/2) = 1 = skill
  });

  it('ships the documented presets', () => {
    expect(learners.names()).toEqual(['irt', 'irt-guess-slip', 'noisy']);
  });
});
