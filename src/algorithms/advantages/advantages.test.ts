import { describe, expect, it } from 'vitest';
import { ConfigError, UnknownNameError } from '../../core/errors.ts';
import { advantageEstimators } from './index.ts';

const estimate = (name: string, rewards: number[][], options?: unknown) =>
  advantageEstimators.get(name).estimate(
    rewards.map((group) => ({ rewards: group })),
    options,
  );

function expectClose(actual: number[][], expected: number[][], digits = 6): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    expect(actual[i].length).toBe(expected[i].length);
    for (let j = 0; j < expected[i].length; j++) expect(actual[i][j]).toBeCloseTo(expected[i][j], digits);
  }
}

describe('advantage registry', () => {
  it('lists the estimators and rejects unknown names with the known ones', () => {
    expect(advantageEstimators.names()).toEqual([
      'dr-grpo',
      'grpo',
      'raft',
      'reinforce-pp',
      'reinforce-rej',
      'rloo',
    ]);
    expect(() => advantageEstimators.get('ppo')).toThrow(UnknownNameError);
  });

  it('rejects group size 1 for group-baseline estimators at config time, accepts it for the others', () => {
    for (const name of ['grpo', 'dr-grpo', 'rloo', 'reinforce-rej']) {
      expect(() => advantageEstimators.get(name).validate(1)).toThrow(ConfigError);
      expect(() => advantageEstimators.get(name).validate(1)).toThrow(/at least 2 samples per prompt, got 1/);
      expect(() => advantageEstimators.get(name).validate(2)).not.toThrow();
      expect(() => estimate(name, [[1]])).toThrow(ConfigError);
    }
    for (const name of ['reinforce-pp', 'raft'])
      expect(() => advantageEstimators.get(name).validate(1)).not.toThrow();
  });

  it('rejects unknown option keys with a ConfigError naming the key', () => {
    expect(() => estimate('grpo', [[1, 0]], { epsilom: 1 })).toThrow(ConfigError);
    expect(() => estimate('grpo', [[1, 0]], { std: 'biased' })).toThrow(/std/);
    expect(advantageEstimators.get('grpo').resolveOptions()).toEqual({ epsilon: 1e-6, std: 'sample' });
  });
});

describe('grpo', () => {
  it('uses the sample std by default: rewards (1,0,0,1) → ±0.5/sqrt(1/3) = ±0.866025', () => {
    // mean 0.5; Σ(r−μ)² = 1; sample std = sqrt(1/3) = 0.577350; 0.5 / 0.577351 = 0.866024
    const result = estimate('grpo', [[1, 0, 0, 1]]);
    expectClose(result.advantages, [[0.866025, -0.866025, -0.866025, 0.866025]], 5);
    expect(result.included).toEqual([[true, true, true, true]]);
  });

  it('population std gives ±1 for (1,0,0,1), and G=2 shows the sqrt((G−1)/G) factor', () => {
    expectClose(estimate('grpo', [[1, 0, 0, 1]], { std: 'population' }).advantages, [[1, -1, -1, 1]], 5);
    expectClose(estimate('grpo', [[1, 0]]).advantages, [[Math.SQRT1_2, -Math.SQRT1_2]], 5);
    expectClose(estimate('grpo', [[1, 0]], { std: 'population' }).advantages, [[1, -1]], 5);
  });

  it('gives 0 to a group whose rewards are all equal', () => {
    expect(
      estimate('grpo', [
        [1, 1, 1],
        [0, 0],
      ]).advantages,
    ).toEqual([
      [0, 0, 0],
      [0, 0],
    ]);
  });
});

describe('dr-grpo, rloo', () => {
  it('dr-grpo centres without dividing: (1,0,0,1) → ±0.5, (3,1) → ±1', () => {
    expect(
      estimate('dr-grpo', [
        [1, 0, 0, 1],
        [3, 1],
      ]).advantages,
    ).toEqual([
      [0.5, -0.5, -0.5, 0.5],
      [1, -1],
    ]);
  });

  it('rloo: (1,0,0,1) → r_i − mean(others) = ±2/3; (2,4,6) → −3, 0, 3', () => {
    // sample 0: 1 − (0+0+1)/3 = 2/3; sample 1: 0 − (1+0+1)/3 = −2/3
    // (2,4,6): 2 − 5 = −3, 4 − 4 = 0, 6 − 3 = 3
    expectClose(
      estimate('rloo', [
        [1, 0, 0, 1],
        [2, 4, 6],
      ]).advantages,
      [
        [2 / 3, -2 / 3, -2 / 3, 2 / 3],
        [-3, 0, 3],
      ],
    );
  });
});

describe('reinforce-pp', () => {
  it('whitens over the whole batch: (1,0),(1,1) → mean 0.75, sample std 0.5 → 0.5, −1.5, 0.5, 0.5', () => {
    // Σ(r−μ)² = 3·0.0625 + 0.5625 = 0.75; /3 = 0.25 → std 0.5
    expectClose(
      estimate('reinforce-pp', [
        [1, 0],
        [1, 1],
      ]).advantages,
      [
        [0.5, -1.5],
        [0.5, 0.5],
      ],
    );
  });

  it('with the group baseline: (0.5,−0.5,0,0), sample std sqrt(1/6) → ±1.224745', () => {
    expectClose(
      estimate(
        'reinforce-pp',
        [
          [1, 0],
          [1, 1],
        ],
        { groupBaseline: true },
      ).advantages,
      [
        [1.224745, -1.224745],
        [0, 0],
      ],
    );
  });

  it('accepts single-sample groups', () => {
    expectClose(estimate('reinforce-pp', [[1], [0]], { std: 'population' }).advantages, [[1], [-1]]);
  });
});

describe('raft', () => {
  it('positive: advantage 1 on correct samples, the rest excluded', () => {
    const result = estimate('raft', [
      [1, 0, 1],
      [0, 0],
    ]);
    expect(result.advantages).toEqual([
      [1, 0, 1],
      [0, 0],
    ]);
    expect(result.included).toEqual([
      [true, false, true],
      [false, false],
    ]);
  });

  it('best: one sample per prompt, ties to the lowest index', () => {
    const result = estimate(
      'raft',
      [
        [0.2, 0.9, 0.9],
        [0, 0],
      ],
      { select: 'best' },
    );
    expect(result.advantages).toEqual([
      [0, 1, 0],
      [1, 0],
    ]);
  });
});

describe('reinforce-rej', () => {
  it('drops all-correct and all-wrong groups and centres the rest', () => {
    const result = estimate('reinforce-rej', [
      [1, 1],
      [0, 0, 0],
      [1, 0, 0, 1],
    ]);
    expect(result.advantages).toEqual([
      [0, 0],
      [0, 0, 0],
      [0.5, -0.5, -0.5, 0.5],
    ]);
    expect(result.included).toEqual([
      [false, false],
      [false, false, false],
      [true, true, true, true],
    ]);
    expect(estimate('reinforce-rej', [[1, 0]], { baseline: 'none' }).advantages).toEqual([[1, 0]]);
  });
});

describe('conformance: every estimator', () => {
  const batch = [
    [1, 0, 0, 1],
    [1, 1, 1, 1],
    [0, 0, 0, 0],
    [0.5, 0.2, 0.9, 0.2],
  ];
  for (const name of advantageEstimators.names()) {
    it(`${name}: one finite advantage per sample, 0 where excluded, deterministic, zero-sum where centred`, () => {
      const first = estimate(name, batch);
      expect(first).toEqual(estimate(name, batch));
      expect(first.advantages.map((row) => row.length)).toEqual(batch.map((row) => row.length));
      first.advantages.forEach((row, i) => {
        row.forEach((value, j) => {
          expect(Number.isFinite(value)).toBe(true);
          if (!first.included[i][j]) expect(value).toBe(0);
        });
      });
      if (['grpo', 'dr-grpo', 'rloo', 'reinforce-rej'].includes(name)) {
        for (const row of first.advantages)
          expect(row.reduce((sum, value) => sum + value, 0)).toBeCloseTo(0, 12);
      }
      expect(advantageEstimators.get(name).resolveOptions()).toEqual(
        advantageEstimators.get(name).optionsSchema.parse({}),
      );
    });
  }
});
