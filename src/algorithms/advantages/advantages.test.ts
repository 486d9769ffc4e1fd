import { describe, expect, it } from 'vitest';
import { ConfigError, UnknownNameError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import { checkAdvantage } from './conformance.ts';
import { advantageEstimators, type RewardGroup } from './index.ts';
import { reinforcePlusPlusAdvantages, reinforcePlusPlusOptionsSchema } from './reinforce-pp.ts';

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
      'gae',
      'grpo',
      'grpo-passk',
      'opo',
      'raft',
      'reinforce-pp',
      'reinforce-rej',
      'remax',
      'rloo',
    ]);
    expect(() => advantageEstimators.get('ppo')).toThrow(UnknownNameError);
  });

  it('rejects group size 1 for group-baseline estimators at config time, accepts it for the others', () => {
    for (const name of ['grpo', 'dr-grpo', 'rloo', 'reinforce-rej', 'opo', 'grpo-passk']) {
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

  it('whitens over tokens: rewards (1,0) with lengths (3,1) → token mean 0.75, token std 0.5 → 0.5, −1.5', () => {
    // tokens 1,1,1,0: μ = 3/4; Σ(x−μ)² = 3·0.0625 + 0.5625 = 0.75; Bessel over 4 tokens: 0.75/3 = 0.25
    const tokens = reinforcePlusPlusAdvantages([{ rewards: [1, 0], lengths: [3, 1] }], defaults);
    expectClose(tokens, [[0.5, -1.5]]);
    // Counting each response once: μ = 0.5, sample std sqrt(0.5) → ±0.707107.
    const perSample = reinforcePlusPlusAdvantages([{ rewards: [1, 0], lengths: [3, 1] }], {
      ...defaults,
      whiten: 'sample',
    });
    expectClose(perSample, [[Math.SQRT1_2, -Math.SQRT1_2]]);
  });

  it('equal lengths still differ from per-sample whitening: sqrt(79/70) at N = 8, L = 10', () => {
    const groups = [
      { rewards: [1, 0, 0, 1], lengths: [10, 10, 10, 10] },
      { rewards: [1, 1, 1, 0], lengths: [10, 10, 10, 10] },
    ];
    // ε = 0 so that the ratio is exactly the variance ratio.
    const tokens = reinforcePlusPlusAdvantages(groups, { ...defaults, epsilon: 0 }).flat();
    const perSample = reinforcePlusPlusAdvantages(groups, {
      ...defaults,
      epsilon: 0,
      whiten: 'sample',
    }).flat();
    // σ²_token = L·S/(N·L − 1), σ²_sample = S/(N − 1): A_token / A_sample = sqrt((N·L − 1)/(L·(N − 1)))
    for (let i = 0; i < tokens.length; i++)
      expect(tokens[i] / perSample[i]).toBeCloseTo(Math.sqrt(79 / 70), 9);
  });

  it('REINFORCE++-baseline: a one-sample group keeps its reward (verl: group mean 0)', () => {
    // centred values: 1 (group of one), −0.5, 0.5 → μ = 1/3, Σ(x−μ)² = 7/6, σ² = 7/12
    const result = estimate('reinforce-pp', [[1], [0, 1]], { groupBaseline: true });
    const sigma = Math.sqrt(7 / 12);
    expectClose(result.advantages, [[(1 - 1 / 3) / sigma], [(-0.5 - 1 / 3) / sigma, (0.5 - 1 / 3) / sigma]]);
  });

  it('matches verl masked_whiten of token-level returns on random batches to 1e-10', () => {
    const rng = new Rng(42);
    for (let trial = 0; trial < 20; trial++) {
      const groups = Array.from({ length: 1 + rng.int(0, 4) }, () => {
        const size = 1 + rng.int(0, 5);
        return {
          rewards: Array.from({ length: size }, () => (rng.next() < 0.3 ? rng.int(0, 1) : rng.normal())),
          lengths: Array.from({ length: size }, () => 1 + rng.int(0, 11)),
        };
      });
      for (const groupBaseline of [false, true]) {
        const expected = verlReinforcePlusPlus(groups, groupBaseline);
        const actual = reinforcePlusPlusFromRegistry(groups, groupBaseline);
        expect(actual.flat().length).toBe(expected.flat().length);
        actual.flat().forEach((value, i) => {
          expect(Math.abs(value - expected.flat()[i])).toBeLessThan(1e-10);
        });
      }
    }
  });
});

const defaults = reinforcePlusPlusOptionsSchema.parse({});

function reinforcePlusPlusFromRegistry(groups: RewardGroup[], groupBaseline: boolean): number[][] {
  return advantageEstimators.get('reinforce-pp').estimate(groups, { groupBaseline }).advantages;
}

/**
 * verl core_algos.py, re-implemented from its code as a padded [batch, maxLength] token matrix:
 * compute_reinforce_plus_plus_outcome_advantage (outcome reward on the last response token, returns-to-go
 * with γ = 1, masked_whiten) and compute_reinforce_plus_plus_baseline_outcome_advantage (score minus the
 * group mean, group of one → mean 0, tiled over the response, masked_whiten). masked_whiten: masked mean,
 * masked variance × n/(n − 1) over the masked count n, (x − mean)·rsqrt(var + 1e-8).
 */
function verlReinforcePlusPlus(groups: RewardGroup[], groupBaseline: boolean): number[][] {
  const lengths = groups.flatMap((group) => [...group.lengths!]);
  const width = Math.max(...lengths);
  const mask = lengths.map((length) => Array.from({ length: width }, (_, t) => (t < length ? 1 : 0)));
  let values: number[][];
  if (groupBaseline) {
    const scores = groups.flatMap((group) => {
      const groupMean =
        group.rewards.length === 1 ? 0 : group.rewards.reduce((a, b) => a + b, 0) / group.rewards.length;
      return group.rewards.map((reward) => reward - groupMean);
    });
    values = scores.map((score, i) => mask[i].map((m) => score * m));
  } else {
    const rewards = groups.flatMap((group) => [...group.rewards]);
    const tokenRewards = rewards.map((reward, i) =>
      mask[i].map((_, t) => (t === lengths[i] - 1 ? reward : 0)),
    );
    values = tokenRewards.map((row, i) => {
      const returns = new Array(width).fill(0);
      let running = 0;
      for (let t = width - 1; t >= 0; t--) {
        running = row[t] + running;
        returns[t] = running;
        running *= mask[i][t];
      }
      return returns;
    });
  }
  let count = 0;
  let sum = 0;
  values.forEach((row, i) => {
    row.forEach((value, t) => {
      count += mask[i][t];
      sum += value * mask[i][t];
    });
  });
  const mu = sum / count;
  let squares = 0;
  values.forEach((row, i) => {
    row.forEach((value, t) => {
      squares += (value - mu) ** 2 * mask[i][t];
    });
  });
  const variance = (squares / count) * (count / (count - 1));
  const whitened = values.map((row, i) =>
    row.map((value, t) => ((value - mu) / Math.sqrt(variance + 1e-8)) * mask[i][t]),
  );
  // Every token of a response carries the same advantage; return it once per response.
  whitened.forEach((row, i) => {
    for (let t = 1; t < lengths[i]; t++) expect(Math.abs(row[t] - row[0])).toBeLessThan(1e-12);
  });
  let offset = 0;
  return groups.map((group) => group.rewards.map(() => whitened[offset++][0]));
}

describe('raft', () => {
  it('positive: advantage 1 on correct samples, 0 on the rest, which stay in the batch (authors)', () => {
    const result = estimate('raft', [
      [1, 0, 1],
      [0, 0],
    ]);
    expect(result.advantages).toEqual([
      [1, 0, 1],
      [0, 0],
    ]);
    expect(result.included).toEqual([
      [true, true, true],
      [true, true],
    ]);
  });

  it("rejected: 'drop' leaves the rejected samples out of the batch", () => {
    const result = estimate(
      'raft',
      [
        [1, 0, 1],
        [0, 0],
      ],
      { rejected: 'drop' },
    );
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
  it('gives all-correct and all-wrong groups advantage 0 (kept in the batch) and centres the rest', () => {
    const groups = [
      [1, 1],
      [0, 0, 0],
      [1, 0, 0, 1],
    ];
    const result = estimate('reinforce-rej', groups);
    expect(result.advantages).toEqual([
      [0, 0],
      [0, 0, 0],
      [0.5, -0.5, -0.5, 0.5],
    ]);
    expect(result.included).toEqual([
      [true, true],
      [true, true, true],
      [true, true, true, true],
    ]);
    const dropped = estimate('reinforce-rej', groups, { rejected: 'drop' });
    expect(dropped.advantages).toEqual(result.advantages);
    expect(dropped.included).toEqual([
      [false, false],
      [false, false, false],
      [true, true, true, true],
    ]);
    expect(estimate('reinforce-rej', [[1, 0]], { baseline: 'none' }).advantages).toEqual([[1, 0]]);
  });
});

describe('conformance: every estimator passes checkAdvantage', () => {
  for (const name of advantageEstimators.names()) {
    it(`${name}: one finite advantage per sample, 0 where excluded, deterministic, zero-sum where centred`, () => {
      // OPO is centred when every sample has the same length (the conformance batch gives none).
      const centred = ['grpo', 'dr-grpo', 'rloo', 'reinforce-rej', 'opo'].includes(name);
      const report = checkAdvantage(advantageEstimators.get(name), { centred });
      expect(report.checks).toContain('every advantage is finite');
    });
  }

  it('fails a broken estimator with the reason', () => {
    const grpo = advantageEstimators.get('grpo');
    const nan = {
      ...grpo,
      estimate: (groups: readonly RewardGroup[]) => {
        const result = grpo.estimate(groups);
        result.advantages[1][2] = Number.NaN;
        return result;
      },
    };
    expect(() => checkAdvantage(nan)).toThrow(
      "advantage estimator 'grpo': every advantage is finite (group 1, sample 2: NaN)",
    );
    const offCentre = {
      ...grpo,
      estimate: (groups: readonly RewardGroup[]) => {
        const result = grpo.estimate(groups);
        result.advantages[0][0] += 0.1;
        return result;
      },
    };
    expect(() => checkAdvantage(offCentre, { centred: true })).toThrow('sum to 0 in each group (group 0');
  });
});
