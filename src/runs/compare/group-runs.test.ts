import { describe, expect, it } from 'vitest';
import { flattenConfig, groupRuns } from './group-runs.ts';

const base = {
  name: 'x',
  seed: 1,
  runsDir: 'runs',
  selector: { name: 'uniform', options: {} },
  train: { steps: 120 },
};

describe('groupRuns', () => {
  it('flattens configs to dot paths with arrays as leaves', () => {
    expect(flattenConfig({ a: { b: 1, c: [1, 2] }, d: 'x' })).toEqual(
      new Map([
        ['a.b', '1'],
        ['a.c', '[1,2]'],
        ['d', '"x"'],
      ]),
    );
  });

  it('labels runs by the keys that differ, ignoring name, seed and runsDir', () => {
    const runs = [
      { name: 'u1', config: base },
      { name: 'u2', config: { ...base, name: 'y', seed: 2, runsDir: 'elsewhere' } },
      { name: 's1', config: { ...base, selector: { name: 'sec', options: {} } } },
    ];
    const grouping = groupRuns(runs);
    expect(grouping.keys).toEqual(['selector.name']);
    expect([...grouping.labels.values()]).toEqual(['uniform', 'uniform', 'sec']);
  });

  it('joins several differing keys as key=value, with absent keys shown as default', () => {
    const runs = [
      { name: 'a', config: base },
      { name: 'b', config: { ...base, selector: { name: 'sec', options: { temperature: 0.5 } } } },
    ];
    expect([...groupRuns(runs).labels.values()]).toEqual([
      'selector.name=uniform selector.options.temperature=default',
      'selector.name=sec selector.options.temperature=0.5',
    ]);
  });

  it('with several keys, leaves out of each label the keys where the run has the majority value', () => {
    const setting = (selector: string, dynamic: boolean, seed: number) => ({
      ...base,
      seed,
      selector: { name: selector, options: {} },
      algorithm: { dynamicSampling: { enabled: dynamic } },
    });
    const runs = [
      { name: 'u1', config: setting('uniform', false, 1) },
      { name: 'u2', config: setting('uniform', false, 2) },
      { name: 's1', config: setting('sec', false, 1) },
      { name: 'b1', config: setting('bots', false, 1) },
      { name: 'd1', config: setting('uniform', true, 1) },
    ];
    const grouping = groupRuns(runs);
    expect(grouping.keys).toEqual(['algorithm.dynamicSampling.enabled', 'selector.name']);
    // uniform without dynamic sampling holds the majority value at both keys: its label stays whole.
    expect([...grouping.labels.values()]).toEqual([
      'algorithm.dynamicSampling.enabled=false selector.name=uniform',
      'algorithm.dynamicSampling.enabled=false selector.name=uniform',
      'selector.name=sec',
      'selector.name=bots',
      'algorithm.dynamicSampling.enabled=true',
    ]);
  });

  it('names a lone number or boolean with its key', () => {
    const runs = [
      { name: 'a', config: { ...base, rollout: { budget: { enabled: false } } } },
      { name: 'b', config: { ...base, rollout: { budget: { enabled: true } } } },
    ];
    expect([...groupRuns(runs).labels.values()]).toEqual([
      'rollout.budget.enabled=false',
      'rollout.budget.enabled=true',
    ]);
  });

  it('groups by the keys given, and puts identical settings in one group', () => {
    const runs = [
      { name: 'a', config: base },
      { name: 'b', config: { ...base, train: { steps: 60 } } },
    ];
    expect([...groupRuns(runs, ['selector.name']).labels.values()]).toEqual(['uniform', 'uniform']);
    expect([
      ...groupRuns([
        { name: 'a', config: base },
        { name: 'b', config: base },
      ]).labels.values(),
    ]).toEqual(['all runs', 'all runs']);
  });
});
