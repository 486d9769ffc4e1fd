import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { fillBatch, filterInformativeGroups, isInformative } from './dynamic-sampling.ts';

interface Group {
  id: number;
  rewards: number[];
}

/** A fake sampler that replays fixed rounds and records what it was asked for. */
function fakeSampler(rounds: number[][][]) {
  const asked: number[] = [];
  let next = 0;
  let id = 0;
  const sampleMore = async (needed: number): Promise<Group[]> => {
    asked.push(needed);
    const round = rounds[next++] ?? [];
    return round.map((rewards) => ({ id: id++, rewards }));
  };
  return { sampleMore, asked };
}

describe('filterInformativeGroups', () => {
  it('drops all-correct and all-wrong groups and keeps single-sample groups (as DAPO)', () => {
    expect(isInformative({ rewards: [1, 1, 1] })).toBe(false);
    expect(isInformative({ rewards: [0, 0] })).toBe(false);
    expect(isInformative({ rewards: [0, 1] })).toBe(true);
    expect(isInformative({ rewards: [1] })).toBe(true);
    const result = filterInformativeGroups([
      { rewards: [1, 1] },
      { rewards: [0, 1] },
      { rewards: [0, 0] },
      { rewards: [0.5, 0] },
    ]);
    expect(result.kept.map((group) => group.rewards)).toEqual([
      [0, 1],
      [0.5, 0],
    ]);
    expect(result.filteredFraction).toBe(0.5);
  });
});

describe('fillBatch', () => {
  it('asks for the missing groups until the batch is full, truncating the surplus', async () => {
    // round 1: 4 groups, 2 informative → need 2 more; round 2: 3 groups, all informative → 5 kept, keep 4
    const { sampleMore, asked } = fakeSampler([
      [
        [1, 1],
        [0, 1],
        [0, 0],
        [1, 0],
      ],
      [
        [0, 1],
        [1, 0],
        [1, 0],
      ],
    ]);
    const result = await fillBatch(4, sampleMore, 10);
    expect(asked).toEqual([4, 2]);
    expect(result.full).toBe(true);
    expect(result.rounds).toBe(2);
    expect(result.groups.map((group) => group.id)).toEqual([1, 3, 4, 5]);
    expect(result.sampledGroups).toBe(7);
    expect(result.filteredFraction).toBeCloseTo(2 / 7, 12);
    expect(result.reason).toBeUndefined();
  });

  it('stops at maxRounds, returns what it has and says so', async () => {
    const { sampleMore, asked } = fakeSampler([
      [
        [1, 1],
        [0, 1],
      ],
      [[0, 0]],
      [[0, 1]],
    ]);
    const result = await fillBatch(3, sampleMore, 2);
    expect(asked).toEqual([3, 2]);
    expect(result.full).toBe(false);
    expect(result.groups).toHaveLength(1);
    expect(result.filteredFraction).toBeCloseTo(2 / 3, 12);
    expect(result.reason).toMatch(/after 2 sampling rounds .* 1 of 3/);
  });

  it('stops when the sampler runs dry', async () => {
    const { sampleMore } = fakeSampler([[[0, 1]]]);
    const result = await fillBatch(2, sampleMore, 5);
    expect(result.full).toBe(false);
    expect(result.rounds).toBe(2);
    expect(result.reason).toMatch(/no groups in round 2/);
  });

  it('rejects a non-positive target or round bound', async () => {
    const { sampleMore } = fakeSampler([]);
    await expect(fillBatch(0, sampleMore, 1)).rejects.toThrow(ConfigError);
    await expect(fillBatch(2, sampleMore, 0)).rejects.toThrow(ConfigError);
  });
});
