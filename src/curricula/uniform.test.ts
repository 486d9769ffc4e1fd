import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { testProblem } from '../testing/curricula/test-pool.ts';
import { selectors } from './index.ts';
import { createUniform } from './uniform.ts';

describe('uniform', () => {
  it('visits every problem once per pass', () => {
    const pool = Array.from({ length: 7 }, (_, i) => testProblem(`p${i}`));
    const ids = createUniform(pool, {})
      .select(7, new Rng(9))
      .map((problem) => problem.id);
    expect([...ids].sort()).toEqual(pool.map((problem) => problem.id));
  });

  it('the registry lists every selector and rejects unknown names with the list', () => {
    expect(selectors.names()).toEqual([
      'adarft',
      'alp-gmm',
      'balanced',
      'bots',
      'dump',
      'e2h',
      'hard-first',
      'learning-progress',
      'reverse',
      'sec',
      'target-relevance',
      'uniform',
      'vcrl',
    ]);
    expect(() => selectors.get('nope')).toThrow(/known: adarft, alp-gmm/);
    expect(() => createUniform([], {})).toThrow(ConfigError);
  });
});
